package dev.steptrace.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.steptrace.store.DuckDb;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/** A plain JDBC connection to a store the CLI wrote, for checking what is in it. */
public final class StoreDb implements AutoCloseable {
    /** Every event row with its table, kind and name: what "which events are in the store" means. */
    public static final String EVENT_ROWS = """
            SELECT 'gpu_ops/' || g.kind || '/' || n.name AS row FROM gpu_ops g JOIN names n USING (file_id, name_id)
            UNION ALL
            SELECT 'cpu_ops/' || c.kind || '/' || n.name FROM cpu_ops c JOIN names n USING (file_id, name_id)
            UNION ALL
            SELECT 'launches/' || l.kind || '/' || n.name FROM launches l JOIN names n USING (file_id, name_id)
            ORDER BY row""";

    private final Connection c;

    private StoreDb(Connection c) {
        this.c = c;
    }

    public static StoreDb open(Path db) throws SQLException {
        Properties props = new Properties();
        props.setProperty("duckdb.read_only", "true");
        return new StoreDb(DuckDb.connect(db.toAbsolutePath(), props));
    }

    public Connection connection() {
        return c;
    }

    public long count(String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                fail("no row from " + sql);
            }
            return rs.getLong(1);
        }
    }

    /** The first column of every row, as text (NULL as null). */
    public List<String> strings(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** The one value of a one-row query, as text. */
    public String string(String sql) throws SQLException {
        List<String> rows = strings(sql);
        assertEquals(1, rows.size(), () -> "rows of " + sql + ": " + rows);
        return rows.get(0);
    }

    /** Every table and view of the store answers a query, and no event row lacks its file. */
    public void assertQueryable() throws SQLException {
        List<String> relations = strings("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
                + " UNION ALL SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal");
        if (relations.size() < 12) {
            fail("the store lists only " + relations);
        }
        for (String r : relations) {
            count("SELECT count(*) FROM \"" + r + "\"");
        }
        for (String t : List.of("gpu_ops", "cpu_ops", "launches", "comm_meta", "names", "devices", "tracks")) {
            assertEquals(0, count("SELECT count(*) FROM " + t + " WHERE file_id NOT IN (SELECT file_id FROM files)"),
                    () -> t + " has rows of a file that is not in files");
        }
    }

    @Override
    public void close() throws SQLException {
        c.close();
    }
}
