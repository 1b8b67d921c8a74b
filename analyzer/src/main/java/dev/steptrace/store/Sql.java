package dev.steptrace.store;

import java.io.IOException;
import java.nio.ByteOrder;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBResultSet;

/**
 * The few statement helpers the analysis code shares: one statement, no parameters, no result kept; a result's rows
 * read as Arrow batches.
 */
public final class Sql {
    private Sql() {}

    /** What a query hands each of its rows to. */
    @FunctionalInterface
    public interface Rows {
        void row(ResultSet rs) throws SQLException;
    }

    /** What a batch of rows goes to, as Arrow vectors: one per column, in the query's order. */
    @FunctionalInterface
    public interface Batches {
        void batch(VectorSchemaRoot rows) throws SQLException;
    }

    /**
     * The rows of a DuckDB result, handed to {@code batches} as Arrow batches of up to {@code batchRows}: for many
     * rows, a vector's values cost an array read each where JDBC's getters cost a call each (docs/performance.md,
     * "Why the code is as it is").
     */
    public static void batches(ResultSet rs, int batchRows, Batches batches) throws SQLException {
        try (BufferAllocator allocator = new RootAllocator();
             ArrowReader reader = (ArrowReader) rs.unwrap(DuckDBResultSet.class)
                     .arrowExportStream(allocator, batchRows)) {
            while (reader.loadNextBatch()) {
                batches.batch(reader.getVectorSchemaRoot());
            }
        } catch (IOException e) {
            throw new SQLException("reading a query's rows as Arrow batches: " + e.getMessage(), e);
        }
    }

    /** A column's value at row {@code r}, of any of DuckDB's integer types; {@code none} where it is NULL. */
    public static long longAt(FieldVector v, int r, long none) {
        return v.isNull(r) ? none : ((BaseIntVector) v).getValueAsLong(r);
    }

    /**
     * A column's values of a batch, of any of DuckDB's integer types, into {@code to} from {@code at}; {@code none}
     * where NULL. BIGINT and INTEGER columns are copied whole: a value at a time costs a call and bounds checks each,
     * which C1 (report's compiler) does not inline away.
     */
    public static void longs(FieldVector v, long[] to, int at, long none) {
        int n = v.getValueCount();
        if (v instanceof BigIntVector b) {
            b.getDataBuffer().nioBuffer(0, n * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()
                    .get(to, at, n);
        } else if (v instanceof IntVector i) {
            int[] values = new int[n];
            i.getDataBuffer().nioBuffer(0, n * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(values);
            for (int r = 0; r < n; r++) {
                to[at + r] = values[r];
            }
        } else {
            for (int r = 0; r < n; r++) {
                to[at + r] = longAt(v, r, none);
            }
            return;
        }
        forEachNull(v, r -> to[at + r] = none);
    }

    /** {@link #longs}, into ints: INTEGER and UTINYINT (an enum's code) columns copied whole, others a value at a time. */
    public static void ints(FieldVector v, int[] to, int at, int none) {
        int n = v.getValueCount();
        if (v instanceof IntVector i) {
            i.getDataBuffer().nioBuffer(0, n * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer()
                    .get(to, at, n);
        } else if (v instanceof UInt1Vector u) {
            byte[] values = new byte[n];
            u.getDataBuffer().getBytes(0, values);
            for (int r = 0; r < n; r++) {
                to[at + r] = values[r] & 0xFF;
            }
        } else {
            for (int r = 0; r < n; r++) {
                to[at + r] = (int) longAt(v, r, none);
            }
            return;
        }
        forEachNull(v, r -> to[at + r] = none);
    }

    /** Each row where {@code v} is NULL, to {@code row}: what a whole copy took from the data buffer there is no value. */
    private static void forEachNull(FieldVector v, IntConsumer row) {
        if (v.getNullCount() == 0) {
            return;
        }
        for (int r = 0; r < v.getValueCount(); r++) {
            if (v.isNull(r)) {
                row.accept(r);
            }
        }
    }

    /** Statements run on a connection, as one unit ({@link #inTransaction}). */
    @FunctionalInterface
    public interface Work {
        void run() throws SQLException;
    }

    /** A name quoted as an SQL identifier (DuckDB's and SQLite's alike): any name, quotes included. */
    public static String identifier(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** The connection's default database: the store's own name (DuckDB names it after its file), unless changed. */
    public static String currentDatabase(Connection c) throws SQLException {
        return strings(c, "SELECT current_database()").get(0);
    }

    /**
     * Where the table that {@code c} finds by {@code name} lives, as its database and schema: a temp table ahead of
     * the others (a read-only store's temp copy of a table ahead of the store's own).
     */
    public static String[] tableLocation(Connection c, String name) throws SQLException {
        List<String> where = strings(c, "SELECT database_name || '.' || schema_name FROM duckdb_tables()"
                + " WHERE table_name = '" + name.replace("'", "''") + "'"
                + " ORDER BY temporary DESC, database_name = current_database() LIMIT 1");
        return where.get(0).split("\\.", 2);
    }

    /** Runs one statement. */
    public static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The first column of a one-row query (a count). */
    public static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The first column of every row. */
    public static List<String> strings(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /**
     * Ends a transaction that failed: rolls it back and gives the connection auto-commit again; what fails
     * in doing so is kept as suppressed on {@code failure}, which stays what the caller throws (a failed
     * rollback would otherwise hide why the transaction failed: a full disk behind "no transaction is active").
     */
    public static <E extends Exception> E abandon(Connection c, E failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        return failure;
    }

    /**
     * Runs {@code work} in a transaction of {@code c}'s and commits it; a failure, the commit's included, {@link
     * #abandon abandons} it. The connection is in auto-commit mode again either way.
     */
    public static void inTransaction(Connection c, Work work) throws SQLException {
        c.setAutoCommit(false);
        try {
            work.run();
            c.commit();
        } catch (SQLException e) {
            throw abandon(c, e);
        } catch (RuntimeException e) {
            throw abandon(c, e);
        }
        c.setAutoCommit(true);
    }

    /** Strings as a SQL list for {@code IN}: {@code ('a', 'b')}, quotes doubled. */
    public static String inList(List<String> values) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < values.size(); i++) {
            sb.append(i > 0 ? ", '" : "'").append(values.get(i).replace("'", "''")).append('\'');
        }
        return sb.append(')').toString();
    }
}
