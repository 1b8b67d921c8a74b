package dev.steptrace.ingest.nsys;

import java.io.IOException;

/**
 * A forward cursor over the rows of one table, columns addressed by their position in the list given
 * to {@link NsysSource#scan}. Integers come as {@code long} with {@link #NULL} for SQL NULL: a
 * sentinel rather than a second call per value keeps the per-row cost of wide tables low. Unsigned
 * 64-bit values keep their bit pattern.
 */
public interface Rows extends AutoCloseable {
    /** What {@link #getLong} returns for NULL (no export column holds this value). */
    long NULL = Long.MIN_VALUE;

    boolean next() throws IOException;

    long getLong(int col) throws IOException;

    /** Text, or null for NULL. */
    String getString(int col) throws IOException;

    @Override
    void close() throws IOException;

    /** A cursor over nothing (a table the export does not have). */
    static Rows empty() {
        return new Rows() {
            @Override
            public boolean next() {
                return false;
            }

            @Override
            public long getLong(int col) {
                return NULL;
            }

            @Override
            public String getString(int col) {
                return null;
            }

            @Override
            public void close() {
            }
        };
    }
}
