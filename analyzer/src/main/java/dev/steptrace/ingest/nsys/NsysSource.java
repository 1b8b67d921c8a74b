package dev.steptrace.ingest.nsys;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * The tables of one Nsight Systems export, whatever its container: a SQLite database, a directory of
 * Parquet files or an Arrow IPC stream file. Every container holds the same tables with the same
 * columns (nsys's export schema), so {@link NsysReader} maps them onto the store once, through this
 * interface.
 *
 * <p>Tables and columns vary by nsys version and by what was traced (tables are created only when
 * they have rows): callers ask {@link #columns} and read a column that a table lacks as NULL.
 */
public interface NsysSource extends AutoCloseable {
    /** A column to read: its name, and whether it holds text (else an integer). */
    record Col(String name, boolean text) {
        public static Col num(String name) {
            return new Col(name, false);
        }

        public static Col text(String name) {
            return new Col(name, true);
        }
    }

    /** Keeps only the rows whose integer {@code column} is one of {@code values}. */
    record Filter(String column, long[] values) {}

    /** The table's column names; empty when the export has no such table. */
    Set<String> columns(String table) throws IOException;

    default boolean has(String table) throws IOException {
        return !columns(table).isEmpty();
    }

    /**
     * Streams the rows of a table (in the container's order). Columns the table lacks read as NULL.
     * A missing table gives no rows.
     *
     * @param filter rows to keep, or null for all
     */
    Rows scan(String table, List<Col> cols, Filter filter) throws IOException;

    @Override
    void close() throws IOException;
}
