package dev.steptrace.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import dev.steptrace.common.Messages;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.duckdb.DuckDBConnection;

/**
 * The DuckDB database every command reads and ingest writes: schema from {@code schema.sql}
 * (documented in docs/schema.md), views from {@code views.sql}.
 */
public final class Store implements AutoCloseable {
    public static final String DEFAULT_FILE = "steptrace.duckdb";
    public static final String ENV_DB = "STEPTRACE_DB";
    /** Bumped whenever schema.sql changes incompatibly. */
    static final String SCHEMA_VERSION = "2";

    private final Path path;
    private final DuckDBConnection connection;
    private final BufferAllocator allocator = new RootAllocator();

    private Store(Path path, DuckDBConnection connection) {
        this.path = path;
        this.connection = connection;
    }

    /** The --db option if given, else $STEPTRACE_DB, else steptrace.duckdb in the working directory. */
    public static Path resolve(Path explicit) {
        if (explicit != null) {
            return explicit;
        }
        String env = System.getenv(ENV_DB);
        return Path.of(env != null && !env.isBlank() ? env : DEFAULT_FILE);
    }

    /** Opens (creating if needed) the store at {@code file}. */
    public static Store open(Path file) throws StoreException {
        Path abs = file.toAbsolutePath().normalize();
        try {
            if (abs.getParent() != null) {
                Files.createDirectories(abs.getParent());
            }
            Properties props = new Properties();
            // DuckDB's default (80% of RAM) would let a large ingest grow far past steptrace's 1 GB budget.
            props.setProperty("memory_limit", System.getenv().getOrDefault("STEPTRACE_MEMORY_LIMIT", "512MB"));
            props.setProperty("preserve_insertion_order", "false");
            loadDuckDb();
            DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + abs, props);
            Store store = new Store(abs, c);
            store.migrate();
            return store;
        } catch (ClassNotFoundException | ExceptionInInitializerError | NoClassDefFoundError | UnsatisfiedLinkError e) {
            // DuckDB's JNI library sits beside steptrace.jar (analyzer/pom.xml says why): a jar copied alone lacks it.
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            throw new StoreException("cannot load DuckDB's native library: " + Messages.firstLine(String.valueOf(root.getMessage()))
                    + " (it belongs beside steptrace.jar, as `mvn package` leaves it in analyzer/target/)", e);
        } catch (SQLException e) {
            throw new StoreException("cannot open the store " + abs + ": " + Messages.firstLine(e.getMessage()), e);
        } catch (IOException e) {
            throw new StoreException("cannot create the directory of the store " + abs + ": " + e.getMessage(), e);
        }
    }

    /**
     * Loads DuckDB's JNI library (once per JVM). When it is missing, DuckDB prints a stack trace of its
     * first attempt before it throws; that goes nowhere here, the exception becomes our one-line message.
     */
    private static synchronized void loadDuckDb() throws ClassNotFoundException {
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(OutputStream.nullOutputStream()));
        try {
            Class.forName("org.duckdb.DuckDBNative");
        } finally {
            System.setErr(stderr);
        }
    }

    private void migrate() throws SQLException, StoreException {
        try (Statement s = connection.createStatement()) {
            s.execute(resource("schema.sql"));
            try (ResultSet rs = s.executeQuery("SELECT value FROM store_info WHERE key = 'schema_version'")) {
                if (rs.next()) {
                    if (!SCHEMA_VERSION.equals(rs.getString(1))) {
                        throw new StoreException("the store " + path + " has schema version " + rs.getString(1)
                                + " but this steptrace uses " + SCHEMA_VERSION
                                + ": remove it (it is rebuilt from the traces) or pass another --db", null);
                    }
                } else {
                    s.execute("INSERT INTO store_info VALUES ('schema_version', '" + SCHEMA_VERSION + "')");
                }
            }
            s.execute(resource("views.sql"));
        }
    }

    public Path path() {
        return path;
    }

    /** The store's main connection (auto-commit). */
    public Connection connection() {
        return connection;
    }

    /** A further connection to the same database, for a worker thread's own transaction. */
    public Connection newConnection() throws SQLException {
        return connection.duplicate();
    }

    /** Off-heap memory for Arrow batches. */
    public BufferAllocator allocator() {
        return allocator;
    }

    @Override
    public void close() throws SQLException {
        try {
            connection.close();
        } finally {
            allocator.close();
        }
    }

    private static String resource(String name) {
        try (InputStream in = Store.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read resource " + name, e);
        }
    }
}
