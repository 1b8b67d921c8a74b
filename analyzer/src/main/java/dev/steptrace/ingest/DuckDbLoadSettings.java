package dev.steptrace.ingest;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * DuckDB's settings while files load, set back after (the analysis after ingest runs with the
 * store's own). docs/performance.md, "Why the code is as it is", has the
 * measurements.
 * <ul>
 * <li>{@code threads = 1}: every statement of a load is an INSERT of one Arrow batch into one file's
 * transaction, run by the thread that issued it. With worker threads, that thread hands the batch's
 * scan to a worker and spins on DuckDB's task queue until it is done, which cost a third of the CPU of
 * a 1 GB ingest and 260 MB of RSS for nothing. Files loaded at once still insert in parallel, each on
 * its own connection's thread.
 * <li>{@code write_buffer_row_group_count = 1}: a file's transaction writes each row group to the
 * database file as soon as it is full, instead of holding five in memory first. The memory of one is
 * reused for the next instead of being freshly faulted in: 120-140 MB less peak RSS and 40% fewer
 * page faults for a 1 GB file, the same rows in a slightly smaller file.
 * </ul>
 */
final class DuckDbLoadSettings implements AutoCloseable {
    private static final Map<String, Integer> WHILE_LOADING = new LinkedHashMap<>();

    static {
        WHILE_LOADING.put("threads", 1);
        WHILE_LOADING.put("write_buffer_row_group_count", 1);
    }

    private final Connection connection;
    private final Map<String, Integer> previous;

    private DuckDbLoadSettings(Connection connection, Map<String, Integer> previous) {
        this.connection = connection;
        this.previous = previous;
    }

    /** Sets the load's settings on the database until {@link #close}. */
    static DuckDbLoadSettings apply(Connection connection) throws SQLException {
        Map<String, Integer> previous = new LinkedHashMap<>();
        try (Statement s = connection.createStatement()) {
            for (Map.Entry<String, Integer> e : WHILE_LOADING.entrySet()) {
                try (ResultSet rs = s.executeQuery("SELECT current_setting('" + e.getKey() + "')")) {
                    rs.next();
                    previous.put(e.getKey(), Integer.parseInt(rs.getString(1)));
                }
            }
            set(s, WHILE_LOADING);
        }
        return new DuckDbLoadSettings(connection, previous);
    }

    private static void set(Statement s, Map<String, Integer> settings) throws SQLException {
        for (Map.Entry<String, Integer> e : settings.entrySet()) {
            s.execute("SET " + e.getKey() + " = " + e.getValue());
        }
    }

    @Override
    public void close() throws SQLException {
        try (Statement s = connection.createStatement()) {
            set(s, previous);
        }
    }
}
