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
    /**
     * A column to read: its name, and whether it holds text (else an integer). A packed column
     * ({@link #packed}) is computed from several small integer columns in one value.
     */
    record Col(String name, boolean text, List<String> parts, int[] bits) {
        public static Col num(String name) {
            return new Col(name, false, null, null);
        }

        public static Col text(String name) {
            return new Col(name, true, null, null);
        }

        /**
         * Integer columns packed into one value, the first in the lowest bits: {@code parts[i]} takes
         * {@code bits[i]} bits. NULL when a part is NULL, negative or too large for its bits (read the
         * parts one by one then). One value instead of several matters where a value costs a native
         * call (SQLite); the bits must add up to at most 63.
         */
        public static Col packed(String name, List<String> parts, int... bits) {
            if (parts.size() != bits.length || java.util.Arrays.stream(bits).sum() > 63) {
                throw new IllegalArgumentException("bad packing of " + name);
            }
            return new Col(name, false, List.copyOf(parts), bits.clone());
        }

        public boolean isPacked() {
            return parts != null;
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
