package dev.steptrace.ingest.nsys;

import dev.steptrace.store.DuckDb;
import dev.steptrace.store.Sql;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBResultSet;

/**
 * An {@code nsys export --type parquetdir} directory: one {@code <TABLE>.parquet} file per table.
 * Each table is scanned by DuckDB's bundled {@code read_parquet} on a private in-memory database and
 * handed over as Arrow record batches (DuckDB's Arrow export of a streaming result), so only one
 * batch per table is in memory.
 */
public final class ParquetDirSource implements NsysSource {
    private static final int BATCH_ROWS = 65536;

    private final Path dir;
    private final BufferAllocator allocator;
    private final Connection duck;
    private final Map<String, Path> files = new HashMap<>();
    private final Map<String, Set<String>> columns = new HashMap<>();

    private ParquetDirSource(Path dir, BufferAllocator allocator, Connection duck) {
        this.dir = dir;
        this.allocator = allocator;
        this.duck = duck;
    }

    public static ParquetDirSource open(Path dir, BufferAllocator allocator) throws IOException {
        Properties props = new Properties();
        props.setProperty("memory_limit", "256MB");
        props.setProperty("jdbc_stream_results", "true");
        Connection c;
        try {
            c = DuckDb.connect(null, props);
        } catch (SQLException e) {
            throw new IOException("cannot start DuckDB to read Parquet: " + e.getMessage(), e);
        }
        ParquetDirSource s = new ParquetDirSource(dir, allocator, c);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.parquet")) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                s.files.put(name.substring(0, name.length() - ".parquet".length()), p);
            }
        } catch (IOException e) {
            s.close();
            throw e;
        }
        return s;
    }

    @Override
    public Set<String> columns(String table) throws IOException {
        Path file = files.get(table);
        if (file == null) {
            return Set.of();
        }
        Set<String> cols = columns.get(table);
        if (cols == null) {
            cols = new LinkedHashSet<>();
            try (Statement s = duck.createStatement();
                 ResultSet rs = s.executeQuery("DESCRIBE SELECT * FROM read_parquet(" + literal(file) + ")")) {
                while (rs.next()) {
                    cols.add(rs.getString(1));
                }
            } catch (SQLException e) {
                throw new IOException(file.getFileName() + ": not a readable Parquet file: " + e.getMessage(), e);
            }
            columns.put(table, cols);
        }
        return cols;
    }

    @Override
    public Rows scan(String table, List<Col> cols, Filter filter) throws IOException {
        Set<String> have = columns(table);
        if (have.isEmpty() || (filter != null && !have.contains(filter.column()))) {
            return Rows.empty();
        }
        // Plain columns as asked (NULL when absent); packed ones are computed from their parts by ArrowRows.
        java.util.LinkedHashMap<String, Boolean> select = new java.util.LinkedHashMap<>();
        for (Col col : cols) {
            if (col.isPacked()) {
                for (String part : col.parts()) {
                    select.putIfAbsent(part, false);
                }
            } else {
                select.put(col.name(), col.text());
            }
        }
        StringBuilder sql = new StringBuilder("SELECT ");
        int i = 0;
        for (Map.Entry<String, Boolean> e : select.entrySet()) {
            if (i++ > 0) {
                sql.append(", ");
            }
            if (have.contains(e.getKey())) {
                sql.append(Sql.identifier(e.getKey()));
            } else {
                sql.append(e.getValue() ? "NULL::VARCHAR AS " : "NULL::BIGINT AS ").append(Sql.identifier(e.getKey()));
            }
        }
        if (select.isEmpty()) {
            sql.append("1 AS one");
        }
        sql.append(" FROM read_parquet(").append(literal(files.get(table))).append(')');
        if (filter != null) {
            sql.append(" WHERE ").append(Sql.identifier(filter.column())).append(" IN (");
            for (int v = 0; v < filter.values().length; v++) {
                sql.append(v > 0 ? ", " : "").append(filter.values()[v]);
            }
            sql.append(')');
        }
        PreparedStatement ps = null;
        try {
            ps = duck.prepareStatement(sql.toString());
            DuckDBResultSet rs = (DuckDBResultSet) ps.executeQuery();
            ArrowReader reader = (ArrowReader) rs.arrowExportStream(allocator, BATCH_ROWS);
            return new ArrowRows(reader, cols, null, table, rs, ps);
        } catch (SQLException e) {
            if (ps != null) {
                try {
                    ps.close();
                } catch (SQLException ignored) {
                    // the read failure is what matters
                }
            }
            throw new IOException(table + ".parquet: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            duck.close();
        } catch (SQLException e) {
            throw new IOException("closing the Parquet reader of " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String literal(Path p) {
        return "'" + p.toAbsolutePath().toString().replace("'", "''") + "'";
    }
}
