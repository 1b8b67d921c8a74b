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
    private final Map<String, Object> values = new LinkedHashMap<>();

    /** Sets a column; a null value is written as NULL. */
    public NamedRow set(String column, Object value) {
        values.put(column, value);
        return this;
    }

    /** Inserts the rows into {@code table} in one batch; every row must set the same columns. */
    public static void insert(Connection connection, String table, List<NamedRow> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        List<String> columns = new ArrayList<>(rows.get(0).values.keySet());
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(table).append(" (");
        StringBuilder marks = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i > 0 ? ", " : "").append('"').append(columns.get(i)).append('"');
            marks.append(i > 0 ? ", ?" : "?");
        }
        sql.append(") VALUES (").append(marks).append(')');
        try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
            for (NamedRow row : rows) {
                if (!row.values.keySet().equals(new java.util.LinkedHashSet<>(columns))) {
                    throw new IllegalArgumentException("rows of one insert into " + table + " set different columns");
                }
                for (int i = 0; i < columns.size(); i++) {
                    ps.setObject(i + 1, row.values.get(columns.get(i)));
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
