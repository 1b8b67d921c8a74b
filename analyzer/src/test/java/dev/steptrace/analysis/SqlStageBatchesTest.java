package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.store.DuckDb;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A statement with {@code in_batch} runs once per batch of files ({@link SqlStage}): the batches it ran for, the
 * table a CREATE makes from the first and fills from the others, its own failure as the caller sees it, and the
 * forms it refuses. Each row records the first file of the batch it was made in.
 */
class SqlStageBatchesTest {
    private static final String MADE_PER_BATCH = "CREATE OR REPLACE TEMP TABLE x AS\n"
            + "SELECT file_id, (SELECT min(file_id) FROM t_files WHERE in_batch(file_id)) AS batch_first\n"
            + "FROM t_files WHERE in_batch(file_id);\n";

    private Connection c;

    @BeforeEach
    void files() throws SQLException {
        c = DuckDb.inMemory();
        exec("CREATE TEMP TABLE t_files AS SELECT range::INTEGER AS file_id, 0 AS rank FROM range(1, 4)");
    }

    @AfterEach
    void close() throws SQLException {
        c.close();
    }

    @Test
    void withoutPlannedBatchesEachFileIsOne() throws SQLException {
        SqlStage.of("t", MADE_PER_BATCH).run(c, Map.of());
        assertEquals(List.of("1 1", "2 2", "3 3"), rows("SELECT file_id, batch_first FROM x ORDER BY file_id"));
        assertEquals(List.of("true"), rows("SELECT getvariable('batch_first') IS NULL AND getvariable('batch_last') IS NULL"));
    }

    @Test
    void thePlannedBatchesAreRunEachOnce() throws SQLException {
        exec("SET VARIABLE file_batches = [[1, 2], [3, 3]]");
        SqlStage.of("t", MADE_PER_BATCH).run(c, Map.of());
        assertEquals(List.of("1 1", "2 1", "3 3"), rows("SELECT file_id, batch_first FROM x ORDER BY file_id"));
    }

    @Test
    void inAWorkDatabaseTheTableIsMadeThereFromEveryBatch() throws SQLException {
        String work = WorkDatabase.attach(c);
        exec("SET VARIABLE file_batches = [[1, 2], [3, 3]]");
        SqlStage.of("t", MADE_PER_BATCH).run(c, Map.of());
        assertEquals(List.of("1 1", "2 1", "3 3"), rows("SELECT file_id, batch_first FROM " + work + ".x ORDER BY file_id"));
        assertEquals(List.of(), rows("SELECT table_name FROM duckdb_tables() WHERE table_name = 'x' AND database_name <> '"
                + work + "'"));
    }

    @Test
    void oneBatchRunsTheStatementOnceOverEveryFile() throws SQLException {
        exec("SET VARIABLE file_batches = [[1, 3]]");
        SqlStage.of("t", MADE_PER_BATCH).run(c, Map.of());
        assertEquals(List.of("1 1", "2 1", "3 1"), rows("SELECT file_id, batch_first FROM x ORDER BY file_id"));
    }

    @Test
    void anInsertRunsForEachBatchAsItIs() throws SQLException {
        exec("CREATE TEMP TABLE y (file_id INTEGER)");
        SqlStage.of("t", "INSERT INTO y SELECT file_id FROM t_files WHERE in_batch(file_id);").run(c, Map.of());
        assertEquals(List.of("1", "2", "3"), rows("SELECT file_id FROM y ORDER BY file_id"));
    }

    @Test
    void aBatchThatFailsIsReportedByItsOwnErrorAndLeavesNoBatchSet() throws SQLException {
        SqlStage stage = SqlStage.of("t", "CREATE OR REPLACE TEMP TABLE x AS\n"
                + "SELECT file_id, CASE WHEN file_id = 2 THEN error('file 2 cannot') END AS v FROM t_files WHERE in_batch(file_id);");
        SQLException e = assertThrows(SQLException.class, () -> stage.run(c, Map.of()));
        assertTrue(e.getMessage().contains("file 2 cannot"), e.getMessage());
        assertEquals(List.of("true"), rows("SELECT getvariable('batch_first') IS NULL AND getvariable('batch_last') IS NULL"));
    }

    @Test
    void aStatementThatWouldKeepTheLastBatchAloneIsRefused() {
        SqlStage stage = SqlStage.of("t", "CREATE OR REPLACE TEMPORARY TABLE x AS\n"
                + "SELECT file_id FROM t_files WHERE in_batch(file_id);");
        assertThrows(IllegalStateException.class, () -> stage.run(c, Map.of()));
    }

    private void exec(String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private List<String> rows(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    row.append(i > 1 ? " " : "").append(rs.getString(i) == null ? "NULL" : rs.getString(i));
                }
                out.add(row.toString());
            }
        }
        return out;
    }
}
