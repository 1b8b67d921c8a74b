package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores of schema versions 6 (version 7 without {@code files.file_stat}) and 7 (version 8 without the tables of
 * the step time, the critical path and the launch contexts) are upgraded in place when opened writable, their rows
 * kept, and their files stamped by the next ingest's read; opened read-only they are read as they are, untouched;
 * an older version is refused as before.
 */
class StoreSchemaUpgradeTest {
    /** A trace of the repository, ingested where it lies: checked out long before the tests, so it is stamped. */
    private static final Path TRACE = TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz");

    @TempDir
    Path tmp;

    @Test
    void aVersionSixStoreIsUpgradedInPlaceWithItsRows() throws Exception {
        Path db = versionSixStore();
        long kernels;
        try (StoreDb s = StoreDb.open(db)) {
            kernels = s.count("SELECT count(*) FROM gpu_ops WHERE kind = 'kernel'");
        }
        Cli.Result again = Cli.ingestJson(db, TRACE);
        Cli.assertExit(0, again);
        assertEquals("unchanged", again.file(TRACE.getFileName().toString()).path("status").asText(), again::describe);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals("8", s.string("SELECT value FROM store_info WHERE key = 'schema_version'"));
            assertEquals(kernels, s.count("SELECT count(*) FROM gpu_ops WHERE kind = 'kernel'"));
            assertEquals(0, s.count("SELECT count(*) FROM step_times"), "version 8's tables made, empty");
            if (FileIdentity.stampsKept(TRACE)) {
                assertNotNull(s.string("SELECT file_stat FROM files"), "read to tell it unchanged, and stamped");
            }
        }
    }

    /** A version-7 store gets version 8's tables, and its capture's report (analysed again) has its step time. */
    @Test
    void aVersionSevenStoreIsUpgradedAndItsReportHasTheStepTime() throws Exception {
        Path db = olderStore("7");
        Path out = tmp.resolve("out");
        Cli.assertExit(0, Cli.run("report", TRACE.toString(), "--db", db.toString(), "--out", out.toString(), "--format",
                "json", "--no-timeline", "-q"));
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals("8", s.string("SELECT value FROM store_info WHERE key = 'schema_version'"));
            assertTrue(s.count("SELECT count(*) FROM step_times") > 0, "the analysis kept again, with its step times");
            assertTrue(s.count("SELECT count(*) FROM critical_path_base") > 0, "and its critical paths");
        }
        assertTrue(Files.readString(out.resolve("report.json")).contains("\"step_time\""));
    }

    @Test
    void aVersionSevenStoreOpenedReadOnlyIsReadAsItIs() throws Exception {
        Path db = olderStore("7");
        byte[] before = Files.readAllBytes(db);
        Cli.Result r = Cli.run("query", "SELECT (SELECT count(*) FROM files) AS n, (SELECT count(*) FROM step_times) AS t",
                "--db", db.toString(), "--format", "csv");
        Cli.assertExit(0, r);
        assertEquals("n,t\n1,0\n", r.out(), r::describe);
        assertArrayEquals(before, Files.readAllBytes(db), "the store is left as it was");
    }

    @Test
    void aVersionSixStoreOpenedReadOnlyIsReadAsItIs() throws Exception {
        Path db = versionSixStore();
        byte[] before = Files.readAllBytes(db);
        Cli.Result r = Cli.run("query", "SELECT count(*) AS n, count(file_stat) AS stamped FROM files", "--db",
                db.toString(), "--format", "csv");
        Cli.assertExit(0, r);
        assertEquals("n,stamped\n1,0\n", r.out(), r::describe);
        assertArrayEquals(before, Files.readAllBytes(db), "the store is left as it was");
    }

    @Test
    void anOlderStoreIsRefusedUntouched() throws Exception {
        Path db = versionSixStore();
        setVersion(db, "5");
        byte[] before = Files.readAllBytes(db);
        Cli.Result r = Cli.ingestJson(db, TRACE);
        assertEquals(1, r.exit(), r::describe);
        assertTrue(r.err().contains("has schema version 5 but this steptrace uses 8"), r::describe);
        assertArrayEquals(before, Files.readAllBytes(db), "the store is left as it was");
    }

    private Path versionSixStore() throws Exception {
        return olderStore("6");
    }

    /**
     * A store as version 6 or 7 wrote it: one trace ingested, without version 8's tables and, in version 6, without
     * the {@code file_stat} column (made from one of this version, those dropped: the later versions only added
     * them), and its kept analysis dropped (an older build's is made again).
     */
    private Path olderStore(String version) throws Exception {
        Path db = tmp.resolve("store.duckdb");
        Cli.assertExit(0, Cli.ingestJson(db, TRACE));
        try (Connection c = DuckDb.connect(db, new Properties()); Statement s = c.createStatement()) {
            for (String table : List.of("critical_path_base", "host_syncs", "idle_cpu_ops", "kernel_contexts", "step_compile_events",
                    "step_time_base", "step_times")) {
                s.execute("DROP TABLE " + table + " CASCADE");
            }
            s.execute("DELETE FROM analyses");
            if (version.equals("6")) {
                s.execute("ALTER TABLE files DROP COLUMN file_stat");
            }
        }
        setVersion(db, version);
        return db;
    }

    private static void setVersion(Path db, String version) throws Exception {
        try (Connection c = DuckDb.connect(db, new Properties()); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE store_info SET value = '" + version + "' WHERE key = 'schema_version'"));
        }
    }
}
