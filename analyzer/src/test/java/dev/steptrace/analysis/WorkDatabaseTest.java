package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.classify.Taxonomy;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.Ingestor;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.DuckDb;
import dev.steptrace.store.Sql;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreCaptures;
import dev.steptrace.testing.TestData;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An analysis of a writable store makes its working tables in a compressed in-memory database of its own
 * ({@link WorkDatabase}), and one of a read-only store in temp tables: the kept analysis is the same either
 * way, and neither leaves a table or a database behind, also when it fails. The store's name needs quoting in
 * the search path, and may look like a work database's.
 */
class WorkDatabaseTest {
    private static final AnalysisKey KEY = AnalysisKey.of(Taxonomy.builtIn(), null, Thresholds.defaults());
    /** The small rank-0 slice of a sample capture. */
    private static final Path SLICE = TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz");

    @TempDir
    Path dir;

    @Test
    void theWorkingTablesAreCompressedApartFromTheStoreAndTheKeptAnalysisIsAsFromTempTables() throws Exception {
        Path db = dir.resolve("it's a \"work\"-store.duckdb");
        int captureId = ingest(db, TestData.sampleTraces().resolve("h200-tp2-moe-eager"));
        String storeName;
        try (Store store = Store.open(db)) {
            storeName = Sql.currentDatabase(store.connection());
            CaptureAnalysis closedTwice;
            try (CaptureAnalysis analysis = CaptureAnalysis.run(store, captureId, KEY)) {
                closedTwice = analysis;
                Connection c = analysis.connection();
                String work = Sql.currentDatabase(c);
                assertTrue(work.startsWith(WorkDatabase.PREFIX), work);
                assertEquals(List.of(work), databasesOfOpsCore(c));
                // Checkpointed after it was made: its columns are stored compressed, not as they came.
                assertTrue(Sql.count(c, "SELECT count(*) FROM pragma_storage_info('" + work + ".t_ops_core')"
                        + " WHERE segment_type <> 'VALIDITY' AND compression <> 'Uncompressed'") > 0);
                assertEquals(storeName, Sql.currentDatabase(store.connection()), "other connections keep the store as default");
                analysis.persist("test");
            }
            closedTwice.close();
            Connection c = store.connection();
            assertEquals(0, workDatabases(c));
            assertEquals(0, Sql.count(c, "SELECT count(*) FROM duckdb_tables() WHERE table_name SIMILAR TO '[th]_.*'"));
            assertTrue(Sql.count(c, "SELECT count(*) FROM steps WHERE capture_id = " + captureId) > 0);
        }
        try (Store store = Store.openReadOnly(db);
             CaptureAnalysis analysis = CaptureAnalysis.run(store, captureId, KEY)) {
            Connection c = analysis.connection();
            assertEquals(List.of("temp"), databasesOfOpsCore(c));
            analysis.persist("test");
            for (String table : StoreCaptures.ANALYSIS_TABLES) {
                if (table.equals("analyses")) {
                    continue; // when and how long: not the analysis
                }
                String temp = "temp.main." + table;
                String kept = Sql.identifier(storeName) + ".main." + table;
                assertEquals(0, Sql.count(c, "SELECT count(*) FROM ((SELECT * FROM " + temp + " EXCEPT ALL SELECT * FROM "
                        + kept + ") UNION ALL (SELECT * FROM " + kept + " EXCEPT ALL SELECT * FROM " + temp + "))"), table);
            }
            assertNotEquals(0, Sql.count(c, "SELECT count(*) FROM temp.main.step_metrics"));
        }
    }

    @Test
    void aStoreNamedLikeAWorkDatabaseIsAnalysedAsAnyOther() throws Exception {
        String next;
        try (Connection scratch = DuckDb.inMemory()) {
            String last = WorkDatabase.attach(scratch);
            WorkDatabase.detach(scratch, last);
            next = WorkDatabase.PREFIX + (Long.parseLong(last.substring(WorkDatabase.PREFIX.length())) + 1);
        }
        Path db = dir.resolve(next + ".duckdb");
        int captureId = ingest(db, SLICE);
        try (Store store = Store.open(db)) {
            assertEquals(next, Sql.currentDatabase(store.connection()));
            try (CaptureAnalysis analysis = CaptureAnalysis.run(store, captureId, KEY)) {
                assertNotEquals(next, Sql.currentDatabase(analysis.connection()));
                analysis.persist("test");
            }
            assertTrue(Sql.count(store.connection(), "SELECT count(*) FROM steps") > 0);
        }
        try (Store store = Store.openReadOnly(db);
             CaptureAnalysis analysis = CaptureAnalysis.run(store, captureId, KEY)) {
            assertEquals(List.of("temp"), databasesOfOpsCore(analysis.connection()));
            analysis.persist("test");
        }
    }

    @Test
    void aFailedAnalysisLeavesNoWorkDatabase() throws Exception {
        Path db = dir.resolve("store.duckdb");
        int captureId = ingest(db, SLICE);
        try (Store store = Store.open(db)) {
            SQLException e = assertThrows(SQLException.class, () -> CaptureAnalysis.run(store, captureId + 1, KEY));
            assertTrue(e.getMessage().contains("no capture"), e.getMessage());
            assertEquals(0, workDatabases(store.connection()));
        }
    }

    /**
     * The working tables are copied, and dropped, before the critical paths are kept: when keeping those fails
     * (a store whose critical_path_base has a column more than the analysis writes), nothing of the analysis is
     * left, the tables copied before included, and the store can be analysed again.
     */
    @Test
    void anAnalysisThatFailsOnceCopiedLeavesNothingKept() throws Exception {
        Path db = dir.resolve("store.duckdb");
        int captureId = ingest(db, SLICE);
        try (Store store = Store.open(db)) {
            Connection c = store.connection();
            Sql.exec(c, "ALTER TABLE critical_path_base ADD COLUMN extra INTEGER");
            try (CaptureAnalysis analysis = CaptureAnalysis.run(store, captureId, KEY)) {
                assertThrows(SQLException.class, () -> analysis.persist("test"));
            }
            assertEquals(0, workDatabases(c));
            for (String table : StoreCaptures.ANALYSIS_TABLES) {
                assertEquals(0, Sql.count(c, "SELECT count(*) FROM " + table), table);
            }
            Sql.exec(c, "ALTER TABLE critical_path_base DROP COLUMN extra");
            try (CaptureAnalysis analysis = CaptureAnalysis.run(store, captureId, KEY)) {
                analysis.persist("test");
            }
            assertEquals(1, Sql.count(c, "SELECT count(*) FROM analyses"));
            assertTrue(Sql.count(c, "SELECT count(*) FROM critical_path_base") > 0);
        }
    }

    /** {@code trace} ingested into a new store at {@code db}: its capture id. */
    private static int ingest(Path db, Path trace) throws Exception {
        try (Store store = Store.open(db)) {
            assertTrue(new Ingestor(store, new IngestOptions(1, false, false)).ingest(List.of(trace)).anyUsable());
            return (int) Sql.count(store.connection(), "SELECT min(capture_id) FROM captures");
        }
    }

    /** The databases a table named t_ops_core is in, as the connection sees them. */
    private static List<String> databasesOfOpsCore(Connection c) throws Exception {
        return Sql.strings(c, "SELECT database_name FROM duckdb_tables() WHERE table_name = 't_ops_core'");
    }

    private static long workDatabases(Connection c) throws Exception {
        return Sql.count(c, "SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE '" + WorkDatabase.PREFIX + "%'");
    }
}
