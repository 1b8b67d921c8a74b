package dev.steptrace.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A store table's columns as {@link TableBatch} fills them: names and ENUM labels in column order, the
 * Arrow schema derived from the DuckDB types, and the INSERT that maps ENUM codes back to labels. Read
 * from DuckDB's catalog, so {@code schema.sql} stays the only definition of a table.
 */
public final class TableColumns {
    private static final Pattern ENUM_LABEL = Pattern.compile("'((?:[^']|'')*)'");

    final String table;
    final List<String> names;
    final List<List<String>> enumLabels;
    final Schema schema;
    /** The name the batch's Arrow stream is registered under, and the INSERT that reads it. */
    final String streamName;
    final String insertSql;

    private TableColumns(String table, List<String> names, List<String> types) {
        this.table = table;
        this.names = List.copyOf(names);
        this.streamName = "steptrace_batch_" + table;
        List<List<String>> labelsOf = new ArrayList<>();
        List<Field> fields = new ArrayList<>();
        StringBuilder select = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            String type = types.get(i);
            String col = '"' + names.get(i) + '"';
            List<String> labels = type.startsWith("ENUM(") ? enumLabels(type) : null;
            labelsOf.add(labels);
            fields.add(Field.nullable(names.get(i), arrowType(type, labels != null)));
            if (i > 0) {
                select.append(", ");
            }
            if (labels != null) {
                select.append("([");
                for (int l = 0; l < labels.size(); l++) {
                    select.append(l > 0 ? ", '" : "'").append(labels.get(l).replace("'", "''")).append('\'');
                }
                select.append("])[").append(col).append(" + 1]");
            } else {
                select.append(col);
            }
        }
        this.enumLabels = labelsOf;
        this.schema = new Schema(fields);
        this.insertSql = "INSERT INTO " + table + " SELECT " + select + " FROM " + streamName;
    }

    /** The columns of {@code table} in the store of {@code connection}. */
    public static TableColumns read(Connection connection, String table) throws SQLException {
        List<String> names = new ArrayList<>();
        List<String> types = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? AND schema_name = 'main' "
                        + "ORDER BY column_index")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                    types.add(rs.getString(2));
                }
            }
        }
        if (names.isEmpty()) {
            throw new SQLException("no table " + table + " in the store");
        }
        return new TableColumns(table, names, types);
    }

    /**
     * The columns of one store's tables, each read once: asking DuckDB's catalog for every file took
     * a fifth of the ingest of small files (docs/performance.md, "Why the code is as it is"). One cache per store,
     * for as long as its schema cannot change (an ingest: the schema is set when the store opens).
     */
    public static final class Cache {
        private final ConcurrentHashMap<String, TableColumns> byTable = new ConcurrentHashMap<>();

        public TableColumns of(Connection connection, String table) throws SQLException {
            TableColumns known = byTable.get(table);
            if (known != null) {
                return known;
            }
            TableColumns read = read(connection, table);
            TableColumns raced = byTable.putIfAbsent(table, read);
            return raced != null ? raced : read;
        }
    }

    private static List<String> enumLabels(String type) {
        List<String> labels = new ArrayList<>();
        Matcher m = ENUM_LABEL.matcher(type);
        while (m.find()) {
            labels.add(m.group(1).replace("''", "'"));
        }
        return labels;
    }

    private static ArrowType arrowType(String duckType, boolean isEnum) {
        if (isEnum) {
            return new ArrowType.Int(8, false);
        }
        switch (duckType) {
            case "INTEGER":
                return new ArrowType.Int(32, true);
            case "BIGINT":
                return new ArrowType.Int(64, true);
            case "UBIGINT":
                return new ArrowType.Int(64, false);
            case "BOOLEAN":
                return ArrowType.Bool.INSTANCE;
            case "VARCHAR":
            case "JSON":
                return ArrowType.Utf8.INSTANCE;
            default:
                throw new IllegalArgumentException("no Arrow mapping for DuckDB type " + duckType);
        }
    }
}
