package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store of schema version 6 (this one without {@code files.file_stat}) is upgraded in place when opened
 * writable, its rows kept; read-only it is refused, saying why; an older version is refused as before.
 */
class StoreSchemaUpgradeTest {
    @TempDir
    Path tmp;

    @Test
    void aVersionSixStoreIsUpgradedInPlaceWithItsRows() throws Exception {
        Path db = versionSixStore();
        Cli.Result again = Cli.ingestJson(db, tmp.resolve("capture"));
        Cli.assertExit(0, again);
        assertEquals("unchanged", again.file("rank0.pt.trace.json").path("status").asText(), again::describe);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals("7", s.string("SELECT value FROM store_info WHERE key = 'schema_version'"));
            assertEquals(2, s.count("SELECT count(*) FROM gpu_ops WHERE kind = 'kernel'"), "the base trace's kernels");
            assertEquals(1, s.count("SELECT count(*) FROM files WHERE file_stat IS NULL"));
        }
    }

    @Test
    void aVersionSixStoreReadOnlyIsRefusedSayingWhy() throws Exception {
        Path db = versionSixStore();
        Cli.Result r = Cli.run("query", "SELECT count(*) FROM files", "--db", db.toString());
        assertEquals(1, r.exit(), r::describe);
        assertTrue(r.err().contains("has schema version 6, which this steptrace upgrades to 7, but it cannot be"
                + " written (read-only)"), r::describe);
        Cli.assertCleanStderr(r);
    }

    @Test
    void anOlderStoreIsRefusedUntouched() throws Exception {
        Path db = versionSixStore();
        setVersion(db, "5");
        byte[] before = Files.readAllBytes(db);
        Cli.Result r = Cli.ingestJson(db, tmp.resolve("capture"));
        assertEquals(1, r.exit(), r::describe);
        assertTrue(r.err().contains("has schema version 5 but this steptrace uses 7"), r::describe);
        assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(db)), "the store is left as it was");
    }

    /** A store as version 6 wrote it: one trace ingested, no {@code file_stat} column. */
    private Path versionSixStore() throws Exception {
        Path capture = Files.createDirectories(tmp.resolve("capture"));
        Files.copy(TestData.baseTrace(), capture.resolve("rank0.pt.trace.json"));
        Path db = tmp.resolve("store.duckdb");
        Cli.assertExit(0, Cli.ingestJson(db, capture));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + db); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE files DROP COLUMN file_stat");
        }
        setVersion(db, "6");
        return db;
    }

    private static void setVersion(Path db, String version) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + db); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE store_info SET value = '" + version + "' WHERE key = 'schema_version'"));
        }
    }
}
