package dev.steptrace.store;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
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
 * <p>Given an inserter thread ({@link #forTable(Connection, BufferAllocator, String, int, ExecutorService)}),
 * a full batch is inserted on that thread while the caller fills a second one, so reading the input
 * and inserting into DuckDB overlap. The connection is then used by the inserter only: the caller
 * must not run other statements on it until {@link #flush} (which waits for every insert) or
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
    /** One buffer, or two when inserts run on the inserter thread. */
    private final VectorSchemaRoot[] roots;
    private final FieldVector[][] vectorsOf;
    /** Rows each buffer has room for now (at most {@link #capacity}). */
    private final int[] roomOf;
    private final Future<?>[] pending;
    private final ExecutorService inserter;
    private int current;
    private FieldVector[] vectors;
    private final int capacity;
    private int rows;
    private long rowsWritten;

    private TableBatch(Connection connection, BufferAllocator allocator, TableColumns columns, int capacity,
                       ExecutorService inserter) {
        this.connection = connection;
        this.inserter = inserter;
        this.allocator = allocator;
        this.columns = columns;
        this.capacity = capacity;
        int buffers = inserter == null ? 1 : 2;
        this.roots = new VectorSchemaRoot[buffers];
        this.vectorsOf = new FieldVector[buffers][];
        this.roomOf = new int[buffers];
        this.pending = new Future<?>[buffers];
        for (int b = 0; b < buffers; b++) {
            roots[b] = VectorSchemaRoot.create(columns.schema, allocator);
            vectorsOf[b] = roots[b].getFieldVectors().toArray(new FieldVector[0]);
            for (FieldVector v : vectorsOf[b]) {
                v.setInitialCapacity(Math.min(capacity, FIRST_ROWS));
            }
            roots[b].allocateNew();
            roomOf[b] = room(vectorsOf[b]);
        }
        this.vectors = vectorsOf[0];
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
        ((IntVector) vectors[column]).set(rows, value);
    }

    public void setLong(int column, long value) {
        ((BigIntVector) vectors[column]).set(rows, value);
    }

    /** For UBIGINT columns: the unsigned value's bit pattern. */
    public void setUnsignedLong(int column, long value) {
        ((UInt8Vector) vectors[column]).set(rows, value);
    }

    public void setBoolean(int column, boolean value) {
        ((BitVector) vectors[column]).set(rows, value ? 1 : 0);
    }

    public void setEnum(int column, int code) {
        ((UInt1Vector) vectors[column]).set(rows, code);
    }

    public void setString(int column, String value) {
        if (value != null) {
            ((VarCharVector) vectors[column]).setSafe(rows, value.getBytes(StandardCharsets.UTF_8));
        }
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
        if (++rows == roomOf[current]) {
            if (rows < capacity) {
                grow();
            } else if (inserter == null) {
                flush();
            } else {
                submit();
            }
        }
    }

    /** Doubles the current buffer's room, keeping its rows. */
    private void grow() {
        for (FieldVector v : vectors) {
            while (v.getValueCapacity() <= rows) {
                v.reAlloc();
            }
        }
        roomOf[current] = room(vectors);
    }

    private int room(FieldVector[] vs) {
        int room = capacity;
        for (FieldVector v : vs) {
            room = Math.min(room, v.getValueCapacity());
        }
        return room;
    }

    public long rowsWritten() {
        return rowsWritten + rows;
    }

    /**
     * Inserts the buffered rows into the table (in the connection's open transaction); with an
     * inserter, also waits until every batch handed to it is in.
     */
    public void flush() throws SQLException {
        if (inserter == null) {
            if (rows > 0) {
                insert(roots[0], rows);
                rowsWritten += rows;
                rows = 0;
                reset(roots[0]);
            }
            return;
        }
        if (rows > 0) {
            submit();
        }
        for (int b = 0; b < roots.length; b++) {
            await(b);
        }
    }

    /** Hands the current buffer to the inserter and continues in the other one once that is free. */
    private void submit() throws SQLException {
        VectorSchemaRoot full = roots[current];
        int n = rows;
        pending[current] = inserter.submit(() -> {
            insert(full, n);
            return null;
        });
        rowsWritten += n;
        rows = 0;
        current = 1 - current;
        vectors = vectorsOf[current];
        try {
            await(current);
        } finally {
            // The other buffer's insert has ended (or failed): it can be refilled.
            reset(roots[current]);
        }
    }

    private void await(int buffer) throws SQLException {
        Future<?> f = pending[buffer];
        if (f == null) {
            return;
        }
        pending[buffer] = null;
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while inserting into " + columns.table, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException se) {
                throw se;
            }
            throw new SQLException("inserting into " + columns.table + ": " + cause, cause);
        }
    }

    /** Empties a buffer for refilling. */
    private static void reset(VectorSchemaRoot root) {
        for (FieldVector v : root.getFieldVectors()) {
            if (v instanceof BaseFixedWidthVector fixed) {
                // The validity bits alone: a value slot is written before its row is marked set, and the
                // slots of NULL rows are never read. Zeroing the values too cost 2% of a large ingest.
                fixed.getValidityBuffer().setZero(0, fixed.getValidityBuffer().capacity());
            } else {
                v.reset();
            }
        }
    }

    private void insert(VectorSchemaRoot root, int rowCount) throws SQLException {
        root.setRowCount(rowCount);
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
    }

    /** Waits for inserts still running (their failure was or will be reported by flush), then frees the buffers. */
    @Override
    public void close() {
        for (int b = 0; b < roots.length; b++) {
            Future<?> f = pending[b];
            if (f != null) {
                try {
                    f.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                    // the caller is closing after a failure of its own, or flush reported this one
                }
            }
        }
        for (VectorSchemaRoot r : roots) {
            r.close();
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
