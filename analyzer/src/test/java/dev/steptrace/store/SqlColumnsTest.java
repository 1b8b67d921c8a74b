package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Sql.longs and Sql.ints: a column's values over several Arrow batches, copied whole or a value at a time by its
 * type, NULLs as the value given, the same as JDBC's getters read them one by one; ColumnRows: every row of a
 * result, forward, as JDBC's getters and wasNull read it.
 */
class SqlColumnsTest {
    /** Rows 0..9999: every 7th value NULL, negative and large values, columns BIGINT, INTEGER, SMALLINT, UTINYINT. */
    private static final String ROWS = """
            SELECT CASE WHEN i % 7 = 3 THEN NULL ELSE (i - 5000) * 1000000007 END::BIGINT AS big,
                   CASE WHEN i % 7 = 4 THEN NULL ELSE i * 3 - 17 END::INTEGER AS int,
                   (i % 300 - 150)::SMALLINT AS small,
                   CASE WHEN i % 7 = 5 THEN NULL ELSE i % 256 END::UTINYINT AS tiny,
                   (i * 11)::BIGINT AS full
            FROM range(10000) t(i) ORDER BY i""";

    @Test
    void everyTypeAndNullReadAsJdbcReadsIt() throws SQLException {
        int n = 10000;
        long[][] expected = new long[5][n];
        try (Connection c = DuckDb.inMemory(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery(ROWS)) {
                for (int r = 0; rs.next(); r++) {
                    for (int k = 0; k < 5; k++) {
                        long v = rs.getLong(k + 1);
                        expected[k][r] = rs.wasNull() ? -99 : v;
                    }
                }
            }
            long[][] longs = new long[5][n + 3];
            int[][] ints = new int[5][n + 3];
            List<Integer> batchRows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery(ROWS)) {
                int[] at = {3};
                // 1000-row batches: copies land at each batch's offset, not only the first
                Sql.batches(rs, 1000, rows -> {
                    for (int k = 0; k < 5; k++) {
                        Sql.longs(rows.getFieldVectors().get(k), longs[k], at[0], -99);
                        Sql.ints(rows.getFieldVectors().get(k), ints[k], at[0], -99);
                    }
                    batchRows.add(rows.getRowCount());
                    at[0] += rows.getRowCount();
                });
            }
            assertEquals(10, batchRows.size(), "batches");
            for (int k = 0; k < 5; k++) {
                assertArrayEquals(expected[k], Arrays.copyOfRange(longs[k], 3, n + 3), "longs of column " + k);
                long[] asInts = Arrays.stream(Arrays.copyOfRange(ints[k], 3, n + 3)).asLongStream().toArray();
                long[] narrowed = Arrays.stream(expected[k]).map(v -> (int) v).toArray();
                assertArrayEquals(narrowed, asInts, "ints of column " + k);
            }
        }
    }

    @Test
    void columnRowsReadEveryRowAsJdbcReadsIt() throws SQLException {
        List<String> jdbc = new ArrayList<>();
        List<String> columns = new ArrayList<>();
        try (Connection c = DuckDb.inMemory(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery(ROWS)) {
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int k = 1; k <= 5; k++) {
                        long v = rs.getLong(k);
                        row.append(rs.wasNull() ? "NULL" : v).append(' ').append((int) v).append(' ');
                    }
                    jdbc.add(row.toString());
                }
            }
            // the rows hold no Long.MIN_VALUE: a NULL reads as it
            try (ResultSet rs = s.executeQuery(ROWS); ColumnRows rows = new ColumnRows(rs, 1000, Long.MIN_VALUE)) {
                while (rows.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int k = 1; k <= 5; k++) {
                        long v = rows.getLong(k);
                        row.append(v == Long.MIN_VALUE ? "NULL" : v).append(' ').append(rows.getInt(k)).append(' ');
                    }
                    columns.add(row.toString());
                }
                assertEquals(false, rows.next(), "after the last row");
            }
            assertEquals(10000, jdbc.size());
            assertEquals(jdbc, columns);
            try (ResultSet rs = s.executeQuery("SELECT 1::BIGINT WHERE false"); ColumnRows rows = new ColumnRows(rs, 1000, 0)) {
                assertEquals(false, rows.next(), "no rows");
            }
        }
    }
}
