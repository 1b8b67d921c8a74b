package dev.steptrace.analysis;

import dev.steptrace.store.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where an analysis of a writable store makes its working tables ({@code t_*}, {@code h_*}): an in-memory
 * database of its own, attached with compression and made its connection's default, so that each stage's
 * {@code CREATE OR REPLACE TEMP TABLE} is made there ({@link SqlStage}) and compressed at a checkpoint after it.
 * Temp tables are kept uncompressed: at the end of a 1 GB file's analysis they hold 180 MB of DuckDB's memory
 * (its limit is 512 MB), compressed 24 MB (docs/performance.md, "Why the code is as it is").
 * A read-only store keeps them as temp tables: DuckDB attaches no in-memory database to one.
 *
 * <p>The database is attached to the store's DuckDB instance, not to the connection: it must be {@link #detach
 * detached}, or it stays until the store closes.
 */
final class WorkDatabase {
    static final String PREFIX = "steptrace_work_";
    /**
     * The connection's variable naming its work database: what tells one, as a store of any name, even one that
     * starts like {@link #PREFIX}, can be a connection's default database too.
     */
    private static final String VARIABLE = "steptrace_work";
    /** Analyses of one store may run on several connections at once: each has a database of its own. */
    private static final AtomicLong NEXT = new AtomicLong();

    private WorkDatabase() {}

    /**
     * Attaches a work database and makes it the connection's default, the store's tables still found by
     * their names (the search path is the connection's own); returns its name.
     */
    static String attach(Connection c) throws SQLException {
        String store = Sql.currentDatabase(c);
        List<String> taken = Sql.strings(c, "SELECT database_name FROM duckdb_databases()");
        String name;
        do {
            name = PREFIX + NEXT.incrementAndGet();
        } while (taken.contains(name));
        Sql.exec(c, "ATTACH ':memory:' AS " + name + " (COMPRESS)");
        try {
            String path = name + ".main," + Sql.identifier(store) + ".main";
            Sql.exec(c, "SET search_path = '" + path.replace("'", "''") + "'");
            Sql.exec(c, "SET VARIABLE " + VARIABLE + " = '" + name + "'");
        } catch (SQLException e) {
            try {
                detach(c, name);
            } catch (SQLException detaching) {
                e.addSuppressed(detaching);
            }
            throw e;
        }
        return name;
    }

    /** The work database the connection makes its tables in, or null: they are temp tables. */
    static String of(Connection c) throws SQLException {
        List<String> work = Sql.strings(c, "SELECT current_database() WHERE current_database() = getvariable('"
                + VARIABLE + "')");
        return work.isEmpty() ? null : work.get(0);
    }

    /** Compresses what the statements since the last checkpoint wrote into {@code name}. */
    static void checkpoint(Connection c, String name) throws SQLException {
        Sql.exec(c, "CHECKPOINT " + name);
    }

    /**
     * Gives the connection its store back as its default and drops the work database with its tables; each
     * step is tried whatever the one before did (DuckDB detaches no connection's default database).
     */
    static void detach(Connection c, String name) throws SQLException {
        SQLException failure = null;
        for (String sql : List.of("RESET VARIABLE " + VARIABLE, "RESET search_path", "DETACH " + name)) {
            try {
                Sql.exec(c, sql);
            } catch (SQLException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
