package dev.steptrace.store;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBResultSet;

/**
 * A result's rows read forward one at a time, as a ResultSet's are, each Arrow batch's columns copied whole into
 * arrays ({@link Sql#longs}): for a pass over every row of a large result, where JDBC's getters cost a check and a
 * call per value (half the launch contexts' pass, docs/performance.md). Columns are numbered from 1, as JDBC's, and
 * are of DuckDB's integer types; a NULL reads as the value the reader is given for it.
 */
public final class ColumnRows implements AutoCloseable {
    private final BufferAllocator allocator;
    private final ArrowReader reader;
    private final long[][] columns;
    private final long nullValue;
    private int rows;
    private int row;

    /** Reads {@code rs}, a DuckDB result, in Arrow batches of up to {@code batchRows}; a NULL reads as {@code nullValue}. */
    public ColumnRows(ResultSet rs, int batchRows, long nullValue) throws SQLException {
        this.nullValue = nullValue;
        int width = rs.getMetaData().getColumnCount();
        allocator = new RootAllocator();
        try {
            reader = (ArrowReader) rs.unwrap(DuckDBResultSet.class).arrowExportStream(allocator, batchRows);
        } catch (SQLException | RuntimeException e) {
            allocator.close();
            throw e;
        }
        columns = new long[width][batchRows];
    }

    /** Moves to the next row; false after the last. */
    public boolean next() throws SQLException {
        if (++row < rows) {
            return true;
        }
        try {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot batch = reader.getVectorSchemaRoot();
                rows = batch.getRowCount();
                if (rows == 0) {
                    continue;
                }
                List<FieldVector> vectors = batch.getFieldVectors();
                for (int k = 0; k < columns.length; k++) {
                    if (columns[k].length < rows) {
                        columns[k] = new long[rows];
                    }
                    Sql.longs(vectors.get(k), columns[k], 0, nullValue);
                }
                row = 0;
                return true;
            }
        } catch (IOException e) {
            throw new SQLException("reading a query's rows as Arrow batches: " + e.getMessage(), e);
        }
        rows = 0;
        row = 0;
        return false;
    }

    /** Column {@code column}'s value in the current row. */
    public long getLong(int column) {
        return columns[column - 1][row];
    }

    /** {@link #getLong}, as an int. */
    public int getInt(int column) {
        return (int) columns[column - 1][row];
    }

    @Override
    public void close() throws SQLException {
        try {
            reader.close();
        } catch (IOException e) {
            throw new SQLException("closing a query's Arrow batches: " + e.getMessage(), e);
        } finally {
            allocator.close();
        }
    }
}
