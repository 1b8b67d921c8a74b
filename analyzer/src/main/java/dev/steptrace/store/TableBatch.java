package dev.steptrace.store;

import dev.steptrace.common.Futures;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;

/**
 * A columnar batch of rows for one store table, handed to DuckDB through the Arrow C data
 * interface ({@code INSERT INTO t SELECT ... FROM <arrow stream>}) each time it fills.
 *
 * <p>The Arrow schema is derived from the table's DuckDB columns, so {@code schema.sql} stays the
 * only definition of a table. ENUM columns travel as their label's index and are mapped back in the
 * INSERT. docs/store-ingest-path.md has the measurement that chose Arrow over DuckDB's appender.
 *
 * <p>Rows are set into plain Java arrays ({@link Rows}) and copied into the Arrow vectors in bulk
 * just before the INSERT: a value set costs an array store, not Arrow's checked per-value setter
 * (docs/performance.md, "Why the code is as it is").
 *
 * <p>Given an inserter thread ({@link #forTable(Connection, BufferAllocator, String, int, ExecutorService)}),
 * a full batch is copied and inserted on that thread while the caller fills a second one, so reading
 * the input and inserting into DuckDB overlap. The connection is then used by the inserter only: the
 * caller must not run other statements on it until {@link #flush} (which waits for every insert) or
 * {@link #close} returns, and every batch of the connection should share the one inserter.
 */
public final class TableBatch implements AutoCloseable {
    /**
     * Rows a buffer holds at first; it doubles up to the batch's capacity as rows come. Buffers of the
     * full 64 Ki rows for every table of every file (twice with an inserter) cost a many-file ingest
     * their allocation and zeroing, most of it for tables a small file fills a few hundred rows of.
     */
    static final int FIRST_ROWS = 1024;

    private final Connection connection;
    private final BufferAllocator allocator;
    private final TableColumns columns;
    /** The Arrow side, one per batch: only the thread that inserts fills it, one batch at a time. */
    private final VectorSchemaRoot root;
    private final FieldVector[] vectors;
    /** One buffer of rows, or two when inserts run on the inserter thread. */
    private final Rows[] buffers;
    private final Future<?>[] pending;
    private final ExecutorService inserter;
    private int current;
    private Rows rows;
    private final int capacity;
    private long rowsWritten;

    private TableBatch(Connection connection, BufferAllocator allocator, TableColumns columns, int capacity,
                       ExecutorService inserter) {
        this.connection = connection;
        this.inserter = inserter;
        this.allocator = allocator;
        this.columns = columns;
        this.capacity = capacity;
        this.root = VectorSchemaRoot.create(columns.schema, allocator);
        this.vectors = root.getFieldVectors().toArray(new FieldVector[0]);
        for (FieldVector v : vectors) {
            v.setInitialCapacity(Math.min(capacity, FIRST_ROWS));
        }
        root.allocateNew();
        int count = inserter == null ? 1 : 2;
        this.buffers = new Rows[count];
        this.pending = new Future<?>[count];
        for (int b = 0; b < count; b++) {
            buffers[b] = new Rows(vectors, Math.min(capacity, FIRST_ROWS));
        }
        this.rows = buffers[0];
    }

    /** A batch for {@code table}, shaped after its columns in the store. */
    public static TableBatch forTable(Connection connection, BufferAllocator allocator, String table, int capacity)
            throws SQLException {
        return forTable(connection, allocator, table, capacity, null);
    }

    /**
     * A batch whose full buffers are inserted on {@code inserter} (a single thread that owns the
     * connection's inserts) while the caller fills the other; null inserts on the caller's thread.
     */
    public static TableBatch forTable(Connection connection, BufferAllocator allocator, String table, int capacity,
                                      ExecutorService inserter) throws SQLException {
        return of(TableColumns.read(connection, table), connection, allocator, capacity, inserter);
    }

    /** A batch for a table whose columns are known (see {@link TableColumns.Cache}). */
    public static TableBatch of(TableColumns columns, Connection connection, BufferAllocator allocator, int capacity,
                                ExecutorService inserter) {
        return new TableBatch(connection, allocator, columns, capacity, inserter);
    }

    /** Index of a column, for the typed setters. */
    public int column(String name) {
        int i = columns.names.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException(columns.table + " has no column " + name);
        }
        return i;
    }

    /** The code to pass to {@link #setEnum} for a label of an ENUM column. */
    public int enumCode(int column, String label) {
        List<String> labels = columns.enumLabels.get(column);
        int code = labels == null ? -1 : labels.indexOf(label);
        if (code < 0) {
            throw new IllegalArgumentException(columns.table + "." + columns.names.get(column) + " has no label " + label);
        }
        return code;
    }

    public void setInt(int column, int value) {
        Rows r = rows;
        r.ints[column][r.count] = value;
        r.valid(column);
    }

    public void setLong(int column, long value) {
        Rows r = rows;
        r.longs[column][r.count] = value;
        r.valid(column);
    }

    /** For UBIGINT columns: the unsigned value's bit pattern. */
    public void setUnsignedLong(int column, long value) {
        setLong(column, value);
    }

    public void setBoolean(int column, boolean value) {
        Rows r = rows;
        int n = r.count;
        long[] bits = r.longs[column];
        if (value) {
            bits[n >>> 6] |= 1L << n;
        } else {
            bits[n >>> 6] &= ~(1L << n);
        }
        r.valid(column);
    }

    public void setEnum(int column, int code) {
        Rows r = rows;
        r.bytes[column][r.count] = (byte) code;
        r.valid(column);
    }

    public void setString(int column, String value) {
        if (value != null) {
            setUtf8(column, value.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Sets a text column to {@code utf8}, a string's bytes, not copied: for a value of a few written many times. */
    public void setUtf8(int column, byte[] utf8) {
        Rows r = rows;
        r.strings[column][r.count] = utf8;
        r.valid(column);
    }

    /** Sets the column when {@code present}; leaves it NULL otherwise. */
    public void setLongIf(boolean present, int column, long value) {
        if (present) {
            setLong(column, value);
        }
    }

    /** Sets the column when {@code present}; leaves it NULL otherwise. */
    public void setIntIf(boolean present, int column, int value) {
        if (present) {
            setInt(column, value);
        }
    }

    public void setIntOrNull(int column, Integer value) {
        if (value != null) {
            setInt(column, value);
        }
    }

    public void setLongOrNull(int column, Long value) {
        if (value != null) {
            setLong(column, value);
        }
    }

    /** Ends the current row (columns not set are NULL); flushes when the batch is full. */
    public void endRow() throws SQLException {
        Rows r = rows;
        r.set[r.count] = r.setInRow;
        r.setInRow = 0;
        if (++r.count == r.room) {
            if (r.room < capacity) {
                r.grow(Math.min(capacity, 2 * r.room));
            } else if (inserter == null) {
                flush();
            } else {
                submit();
            }
        }
    }

    public long rowsWritten() {
        return rowsWritten + rows.count;
    }

    /**
     * Inserts the buffered rows into the table (in the connection's open transaction); with an
     * inserter, also waits until every batch handed to it is in.
     */
    public void flush() throws SQLException {
        if (inserter == null) {
            if (rows.count > 0) {
                int n = rows.count;
                insert(rows);
                rowsWritten += n;
            }
            return;
        }
        if (rows.count > 0) {
            submit();
        }
        for (int b = 0; b < buffers.length; b++) {
            await(b);
        }
    }

    /** Hands the current buffer to the inserter and continues in the other one once that is free. */
    private void submit() throws SQLException {
        Rows full = rows;
        // Its count read before the hand-off: from then on the buffer is the inserter's, which empties it
        // (count 0) when the insert ends, possibly before inserter.submit has returned here.
        int n = full.count;
        pending[current] = inserter.submit(() -> {
            insert(full);
            return null;
        });
        rowsWritten += n;
        current = 1 - current;
        rows = buffers[current];
        // The other buffer is emptied by its insert, done or failed, before it can be refilled.
        await(current);
    }

    private void await(int buffer) throws SQLException {
        Future<?> f = pending[buffer];
        if (f == null) {
            return;
        }
        try {
            f.get();
            pending[buffer] = null;
        } catch (InterruptedException e) {
            // The insert may still be running: it stays pending, so close() waits for it before freeing its vectors.
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while inserting into " + columns.table, e);
        } catch (ExecutionException e) {
            pending[buffer] = null;
            Throwable cause = e.getCause();
            if (cause instanceof SQLException se) {
                throw se;
            }
            if (cause instanceof OutOfMemoryError oom) {
                // Out of heap on the insert thread: the file's load ran out of it, not the store's writes.
                throw oom;
            }
            throw new SQLException("inserting into " + columns.table + ": " + cause, cause);
        }
    }

    /** Copies the rows into the Arrow vectors, inserts them, and empties the buffer (also when the insert fails). */
    private void insert(Rows full) throws SQLException {
        try {
            full.copyTo(vectors);
            root.setRowCount(full.count);
            try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch();
                 OneBatchReader reader = new OneBatchReader(allocator, root.getSchema(), batch);
                 ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
                Data.exportArrayStream(allocator, reader, stream);
                connection.unwrap(DuckDBConnection.class).registerArrowStream(columns.streamName, stream);
                try (Statement s = connection.createStatement()) {
                    s.execute(columns.insertSql);
                }
            } catch (java.io.IOException e) {
                throw new SQLException("closing the Arrow batch for " + columns.table, e);
            }
        } finally {
            full.clear();
        }
    }

    /**
     * Waits for inserts still running, also when interrupted (their failure was or will be reported by flush,
     * or the caller is closing after a failure of its own), then frees the buffers.
     */
    @Override
    public void close() {
        for (int b = 0; b < buffers.length; b++) {
            if (pending[b] != null) {
                Futures.finish(pending[b]);
                pending[b] = null;
            }
        }
        root.close();
    }

    /**
     * One buffer of rows in Java arrays, by column: values of INTEGER columns in {@code ints}, of BIGINT
     * and UBIGINT columns in {@code longs}, of ENUM codes in {@code bytes}, of VARCHAR columns as UTF-8
     * in {@code strings}, of BOOLEAN columns as bits in {@code longs}; which values of a row are set (the
     * rest are NULL) in {@code set}.
     */
    private static final class Rows {
        final int[][] ints;
        final long[][] longs;
        final byte[][] bytes;
        final byte[][][] strings;
        final boolean[] isBits;
        /**
         * Per row, the columns set in it (bit c for column c): one OR per value on the thread that fills
         * the rows; the validity bitmaps are made from it by the copy, on the inserting thread.
         */
        long[] set;
        long setInRow;
        /** One column's validity bitmap while it is copied. */
        long[] validity;
        int room;
        int count;

        Rows(FieldVector[] vectors, int room) {
            int n = vectors.length;
            ints = new int[n][];
            longs = new long[n][];
            bytes = new byte[n][];
            strings = new byte[n][][];
            isBits = new boolean[n];
            if (n > Long.SIZE) {
                throw new IllegalArgumentException("a batch holds at most " + Long.SIZE + " columns, not " + n);
            }
            for (int c = 0; c < n; c++) {
                FieldVector v = vectors[c];
                if (v instanceof IntVector) {
                    ints[c] = new int[room];
                } else if (v instanceof BigIntVector || v instanceof UInt8Vector) {
                    longs[c] = new long[room];
                } else if (v instanceof UInt1Vector) {
                    bytes[c] = new byte[room];
                } else if (v instanceof VarCharVector) {
                    strings[c] = new byte[room][];
                } else if (v instanceof BitVector) {
                    isBits[c] = true;
                    longs[c] = new long[words(room)];
                } else {
                    throw new IllegalArgumentException("no row storage for " + v.getField());
                }
            }
            set = new long[room];
            validity = new long[words(room)];
            this.room = room;
        }

        private static int words(int rows) {
            return (rows + 63) >>> 6;
        }

        void valid(int column) {
            setInRow |= 1L << column;
        }

        /** Makes room for {@code newRoom} rows, keeping those set. */
        void grow(int newRoom) {
            set = Arrays.copyOf(set, newRoom);
            validity = new long[words(newRoom)];
            for (int c = 0; c < ints.length; c++) {
                if (ints[c] != null) {
                    ints[c] = Arrays.copyOf(ints[c], newRoom);
                } else if (bytes[c] != null) {
                    bytes[c] = Arrays.copyOf(bytes[c], newRoom);
                } else if (strings[c] != null) {
                    strings[c] = Arrays.copyOf(strings[c], newRoom);
                } else {
                    longs[c] = Arrays.copyOf(longs[c], isBits[c] ? words(newRoom) : newRoom);
                }
            }
            room = newRoom;
        }

        /** Copies the rows into the vectors, values and validity in bulk, growing them as needed. */
        void copyTo(FieldVector[] vectors) {
            int n = count;
            for (int c = 0; c < vectors.length; c++) {
                FieldVector v = vectors[c];
                if (strings[c] != null) {
                    VarCharVector s = (VarCharVector) v;
                    s.reset();
                    byte[][] values = strings[c];
                    for (int i = 0; i < n; i++) {
                        if (values[i] != null) {
                            s.setSafe(i, values[i]);
                        }
                    }
                    continue;
                }
                while (v.getValueCapacity() < n) {
                    v.reAlloc();
                }
                copyBits(validity(c, n), n, v.getValidityBuffer());
                ArrowBuf data = v.getDataBuffer();
                if (ints[c] != null) {
                    data.nioBuffer(0, n * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(ints[c], 0, n);
                } else if (bytes[c] != null) {
                    data.setBytes(0, bytes[c], 0, n);
                } else if (isBits[c]) {
                    copyBits(longs[c], n, data);
                } else {
                    data.nioBuffer(0, n * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(longs[c], 0, n);
                }
            }
        }

        /** The validity bitmap of {@code column} over the first {@code n} rows, from {@link #set}. */
        private long[] validity(int column, int n) {
            long[] bits = validity;
            for (int w = 0, from = 0; from < n; w++, from += Long.SIZE) {
                long word = 0;
                for (int i = Math.min(n - from, Long.SIZE) - 1; i >= 0; i--) {
                    word = word << 1 | (set[from + i] >>> column) & 1L;
                }
                bits[w] = word;
            }
            return bits;
        }

        /** Arrow bitmaps are little-endian bit by bit: the words' bytes in little-endian order, up to row {@code n}. */
        private static void copyBits(long[] words, int n, ArrowBuf to) {
            int bytes = (n + 7) >>> 3;
            int whole = bytes >>> 3;
            to.nioBuffer(0, whole * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(words, 0, whole);
            for (int b = whole * Long.BYTES; b < bytes; b++) {
                to.setByte(b, (byte) (words[b >>> 3] >>> ((b & 7) * 8)));
            }
        }

        /** Empties the buffer: no value set, no text kept. */
        void clear() {
            for (int c = 0; c < strings.length; c++) {
                if (strings[c] != null) {
                    Arrays.fill(strings[c], 0, count, null);
                }
            }
            count = 0;
        }
    }

    /** Hands one record batch to DuckDB's Arrow scan. */
    private static final class OneBatchReader extends ArrowReader {
        private final Schema schema;
        private ArrowRecordBatch batch;

        OneBatchReader(BufferAllocator allocator, Schema schema, ArrowRecordBatch batch) {
            super(allocator);
            this.schema = schema;
            this.batch = batch;
        }

        @Override
        public boolean loadNextBatch() throws java.io.IOException {
            if (batch == null) {
                return false;
            }
            new VectorLoader(getVectorSchemaRoot()).load(batch);
            batch = null;
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
        }

        @Override
        protected Schema readSchema() {
            return schema;
        }
    }
}
