package dev.steptrace.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of a store table as column name → value, for the tables written a few rows per file
 * ({@code files}, {@code devices}, {@code tracks}). The INSERT names its columns, so a column added to
 * {@code schema.sql} or a change of order breaks nothing; columns left unset are NULL (or their default).
 * Event tables, millions of rows, go through {@link TableBatch}, whose columns are also looked up by name.
 */
public final class NamedRow {
    /** Rows per INSERT statement (one parameter per value). */
    private static final int ROWS_PER_STATEMENT = 256;
    private final Map<String, Object> values = new LinkedHashMap<>();

    /** Sets a column; a null value is written as NULL. */
    public NamedRow set(String column, Object value) {
        values.put(column, value);
        return this;
    }

    /**
     * Inserts the rows into {@code table}, many rows per statement; every row must set the same columns.
     * (DuckDB's JDBC driver runs a statement batch as one execution per row: a file's tracks and
     * devices took about a fifth of the ingest of a small file that way.)
     */
    public static void insert(Connection connection, String table, List<NamedRow> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        List<String> columns = new ArrayList<>(rows.get(0).values.keySet());
        for (NamedRow row : rows) {
            if (!row.values.keySet().equals(rows.get(0).values.keySet())) {
                throw new IllegalArgumentException("rows of one insert into " + table + " set different columns");
            }
        }
        StringBuilder head = new StringBuilder("INSERT INTO ").append(table).append(" (");
        StringBuilder marks = new StringBuilder("(");
        for (int i = 0; i < columns.size(); i++) {
            head.append(i > 0 ? ", " : "").append('"').append(columns.get(i)).append('"');
            marks.append(i > 0 ? ", ?" : "?");
        }
        head.append(") VALUES ");
        marks.append(')');
        for (int from = 0; from < rows.size(); from += ROWS_PER_STATEMENT) {
            List<NamedRow> some = rows.subList(from, Math.min(rows.size(), from + ROWS_PER_STATEMENT));
            StringBuilder sql = new StringBuilder(head);
            for (int r = 0; r < some.size(); r++) {
                sql.append(r > 0 ? ", " : "").append(marks);
            }
            try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
                int p = 1;
                for (NamedRow row : some) {
                    for (String column : columns) {
                        ps.setObject(p++, row.values.get(column));
                    }
                }
                ps.executeUpdate();
            }
        }
    }
}
