package dev.steptrace.ingest;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * DuckDB's worker threads set to one while files load, and set back after. Every statement of a load
 * is an INSERT of one Arrow batch into one file's transaction, run by the thread that issued it: with
 * worker threads, that thread hands the batch's scan to a worker and spins on DuckDB's task queue until
 * it is done, which cost a third of the CPU of a 1 GB ingest and 260 MB of RSS for nothing
 * (docs/performance.md, "The store side"). Files loaded at once still insert in parallel, each on its
 * own connection's thread. The analysis after ingest gets the workers back.
 */
final class DuckDbThreads implements AutoCloseable {
    private final Connection connection;
    private final String previous;

    private DuckDbThreads(Connection connection, String previous) {
        this.connection = connection;
        this.previous = previous;
    }

    /** Sets the database's {@code threads} to 1 until {@link #close}. */
    static DuckDbThreads one(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            String previous;
            try (ResultSet rs = s.executeQuery("SELECT current_setting('threads')")) {
                rs.next();
                previous = rs.getString(1);
            }
            s.execute("SET threads = 1");
            return new DuckDbThreads(connection, previous);
        }
    }

    @Override
    public void close() throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("SET threads = " + Integer.parseInt(previous));
        }
    }
}
