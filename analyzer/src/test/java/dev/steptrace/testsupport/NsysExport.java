package dev.steptrace.testsupport;

import dev.steptrace.store.DuckDb;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An Nsight Systems export built in test code: tables with the documented names, columns and types
 * (docs/reference/trace-formats.md §B), written in each container nsys exports to: a SQLite database
 * (through sqlite-jdbc), a directory of {@code <TABLE>.parquet} files (through DuckDB's COPY) and an
 * Arrow IPC stream file with one stream per table named in the schema metadata {@code table_name}
 * (through Arrow Java). Arrow and Parquet keep unsigned types where nsys does (columns declared
 * {@code UINT32}/{@code UINT64}); SQLite widens them to INTEGER, as nsys does.
 */
public final class NsysExport {
    /** Container formats, as {@code nsys export --type} names them. */
    public enum Container {
        SQLITE("sqlite"), PARQUETDIR("parquetdir"), ARROW("arrow");

        private final String type;

        Container(String type) {
            this.type = type;
        }

        /** A file (or directory) name for this container: {@code base.sqlite}, {@code base/}, {@code base.arrows}. */
        public String fileName(String base) {
            switch (this) {
                case SQLITE:
                    return base + ".sqlite";
                case ARROW:
                    return base + ".arrows";
                default:
                    return base;
            }
        }

        public String type() {
            return type;
        }
    }

    /** One table: column names and types (INTEGER, TEXT, REAL, UINT32, UINT64) and its rows. */
    public static final class Table {
        final String name;
        final List<String> columns = new ArrayList<>();
        final List<String> types = new ArrayList<>();
        final List<Object[]> rows = new ArrayList<>();

        Table(String name, String... columnsAndTypes) {
            this.name = name;
            for (String c : columnsAndTypes) {
                String[] parts = c.trim().split("\\s+");
                columns.add(parts[0]);
                types.add(parts.length > 1 ? parts[1].toUpperCase(java.util.Locale.ROOT) : "INTEGER");
            }
        }

        /** Adds a row; values by column position (Long/Integer, String, Double or null). */
        public Table row(Object... values) {
            if (values.length != columns.size()) {
                throw new IllegalArgumentException(name + ": " + values.length + " values for " + columns.size()
                        + " columns " + columns);
            }
            rows.add(values);
            return this;
        }

        /** Adds a row given as column name → value; absent columns are NULL. */
        public Table row(Map<String, Object> values) {
            Object[] row = new Object[columns.size()];
            for (Map.Entry<String, Object> e : values.entrySet()) {
                int i = columns.indexOf(e.getKey());
                if (i >= 0) {
                    row[i] = e.getValue();
                }
            }
            rows.add(row);
            return this;
        }

        public boolean has(String column) {
            return columns.contains(column);
        }

        public int size() {
            return rows.size();
        }
    }

    private final Map<String, Table> tables = new LinkedHashMap<>();
    /** Rows per Arrow record batch and Parquet row group: small, so readers cross batch boundaries. */
    private int batchRows = 3;

    public Table table(String name, String... columnsAndTypes) {
        Table t = new Table(name, columnsAndTypes);
        tables.put(name, t);
        return t;
    }

    public Table get(String name) {
        return tables.get(name);
    }

    public NsysExport batchRows(int rows) {
        this.batchRows = rows;
        return this;
    }

    public void write(Container container, Path path) throws IOException, SQLException {
        switch (container) {
            case SQLITE:
                writeSqlite(path);
                break;
            case PARQUETDIR:
                writeParquetDir(path);
                break;
            default:
                writeArrow(path);
        }
    }

    public void writeSqlite(Path file) throws SQLException, IOException {
        Files.deleteIfExists(file);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath())) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                for (Table t : tables.values()) {
                    StringBuilder ddl = new StringBuilder("CREATE TABLE " + t.name + " (");
                    for (int i = 0; i < t.columns.size(); i++) {
                        String type = t.types.get(i).startsWith("UINT") ? "INTEGER" : t.types.get(i);
                        ddl.append(i > 0 ? ", " : "").append('"').append(t.columns.get(i)).append("\" ").append(type);
                    }
                    s.execute(ddl.append(')').toString());
                }
            }
            for (Table t : tables.values()) {
                insertAll(c, t, "\"" + t.name + "\"");
            }
            c.commit();
        }
    }

    public void writeParquetDir(Path dir) throws SQLException, IOException {
        Files.createDirectories(dir);
        try (Connection c = DuckDb.inMemory()) {
            for (Table t : tables.values()) {
                StringBuilder ddl = new StringBuilder("CREATE TABLE \"" + t.name + "\" (");
                for (int i = 0; i < t.columns.size(); i++) {
                    ddl.append(i > 0 ? ", " : "").append('"').append(t.columns.get(i)).append("\" ")
                            .append(duckType(t.types.get(i)));
                }
                try (Statement s = c.createStatement()) {
                    s.execute(ddl.append(')').toString());
                }
                insertAll(c, t, "\"" + t.name + "\"");
                try (Statement s = c.createStatement()) {
                    s.execute("COPY \"" + t.name + "\" TO '" + dir.resolve(t.name + ".parquet").toAbsolutePath()
                            + "' (FORMAT parquet, ROW_GROUP_SIZE " + Math.max(batchRows, 1) + ")");
                }
            }
        }
    }

    /** One Arrow IPC stream per table, back to back in one file, each naming its table in the schema metadata. */
    public void writeArrow(Path file) throws IOException {
        try (BufferAllocator allocator = new RootAllocator();
             OutputStream raw = Files.newOutputStream(file)) {
            OutputStream keepOpen = new java.io.FilterOutputStream(raw) {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }

                @Override
                public void close() throws IOException {
                    flush();
                }
            };
            for (Table t : tables.values()) {
                List<Field> fields = new ArrayList<>();
                for (int i = 0; i < t.columns.size(); i++) {
                    fields.add(new Field(t.columns.get(i), FieldType.nullable(arrowType(t.types.get(i))), null));
                }
                Schema schema = new Schema(fields, Map.of("table_name", t.name));
                try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
                    ArrowStreamWriter w = new ArrowStreamWriter(root, null, Channels.newChannel(keepOpen));
                    w.start();
                    for (int from = 0; from < t.rows.size(); from += batchRows) {
                        int to = Math.min(t.rows.size(), from + batchRows);
                        root.allocateNew();
                        for (int r = from; r < to; r++) {
                            for (int col = 0; col < t.columns.size(); col++) {
                                set(root.getVector(col), r - from, t.rows.get(r)[col]);
                            }
                        }
                        root.setRowCount(to - from);
                        w.writeBatch();
                    }
                    w.end();
                }
            }
            keepOpen.flush();
        }
    }

    private static void insertAll(Connection c, Table t, String quotedName) throws SQLException {
        if (t.rows.isEmpty()) {
            return;
        }
        String marks = String.join(", ", java.util.Collections.nCopies(t.columns.size(), "?"));
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + quotedName + " VALUES (" + marks + ")")) {
            for (Object[] row : t.rows) {
                for (int i = 0; i < row.length; i++) {
                    Object v = row[i];
                    if (v instanceof Integer n) {
                        v = n.longValue();
                    }
                    if (v == null) {
                        ps.setNull(i + 1, t.types.get(i).equals("TEXT") ? java.sql.Types.VARCHAR
                                : t.types.get(i).equals("REAL") ? java.sql.Types.DOUBLE : java.sql.Types.BIGINT);
                    } else if (t.types.get(i).equals("UINT64") && v instanceof Long l && l < 0) {
                        ps.setObject(i + 1, new java.math.BigInteger(Long.toUnsignedString(l)));
                    } else {
                        ps.setObject(i + 1, v);
                    }
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static String duckType(String type) {
        switch (type) {
            case "TEXT":
                return "VARCHAR";
            case "REAL":
                return "DOUBLE";
            case "UINT32":
                return "UINTEGER";
            case "UINT64":
                return "UBIGINT";
            default:
                return "BIGINT";
        }
    }

    private static ArrowType arrowType(String type) {
        switch (type) {
            case "TEXT":
                return ArrowType.Utf8.INSTANCE;
            case "REAL":
                return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case "UINT32":
                return new ArrowType.Int(32, false);
            case "UINT64":
                return new ArrowType.Int(64, false);
            default:
                return new ArrowType.Int(64, true);
        }
    }

    private static void set(FieldVector v, int row, Object value) {
        if (value == null) {
            v.setNull(row);
            return;
        }
        if (v instanceof BigIntVector b) {
            b.setSafe(row, ((Number) value).longValue());
        } else if (v instanceof UInt8Vector b) {
            b.setSafe(row, ((Number) value).longValue());
        } else if (v instanceof UInt4Vector b) {
            b.setSafe(row, (int) ((Number) value).longValue());
        } else if (v instanceof Float8Vector b) {
            b.setSafe(row, ((Number) value).doubleValue());
        } else if (v instanceof VarCharVector b) {
            b.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
        } else {
            throw new IllegalArgumentException("no setter for " + v.getClass().getSimpleName());
        }
    }

    /** The tables, for tests that inspect them. */
    public List<String> tableNames() {
        return new ArrayList<>(tables.keySet());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Table t : tables.values()) {
            sb.append(t.name).append(Arrays.toString(t.columns.toArray())).append(": ").append(t.rows.size())
                    .append(" rows\n");
        }
        return sb.toString();
    }
}
