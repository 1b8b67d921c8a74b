package dev.steptrace.store;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.duckdb.DuckDBConnection;

/**
 * Every DuckDB database steptrace opens is opened here (the store, an nsys Parquet export's reader, the
 * Spark executors' and the tests' scratch databases), never with DuckDB's own defaults: those install an
 * extension from the network and load it whenever a query or a file asks for one (an SQLite file given as
 * a database fetches {@code sqlite_scanner}). steptrace works offline: only the extensions built into
 * DuckDB's JDBC library (json, parquet, icu) are there, and nothing is installed or loaded on request.
 */
public final class DuckDb {
    private DuckDb() {}

    /**
     * A connection to the database {@code file} (a new in-memory database when null), with the given DuckDB
     * settings and extensions neither installed nor loaded automatically.
     */
    public static DuckDBConnection connect(Path file, Properties settings) throws SQLException {
        Properties p = new Properties();
        p.putAll(settings);
        p.setProperty("autoinstall_known_extensions", "false");
        p.setProperty("autoload_known_extensions", "false");
        p.setProperty("allow_community_extensions", "false");
        return (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + (file == null ? "" : file.toString()), p);
    }

    /** A connection to a new in-memory database, with DuckDB's defaults but the extensions' as above. */
    public static DuckDBConnection inMemory() throws SQLException {
        return connect(null, new Properties());
    }
}
