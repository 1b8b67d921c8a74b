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
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store of schema version 6 (version 7 without {@code files.file_stat}) is upgraded in place when opened
 * writable, its rows kept, and its files stamped by the next ingest's read; opened read-only it is read as it
 * is, untouched; an older version is refused as before.
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
            assertEquals("7", s.string("SELECT value FROM store_info WHERE key = 'schema_version'"));
            assertEquals(kernels, s.count("SELECT count(*) FROM gpu_ops WHERE kind = 'kernel'"));
            if (FileIdentity.stampsKept(TRACE)) {
                assertNotNull(s.string("SELECT file_stat FROM files"), "read to tell it unchanged, and stamped");
            }
        }
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
        assertTrue(r.err().contains("has schema version 5 but this steptrace uses 7"), r::describe);
        assertArrayEquals(before, Files.readAllBytes(db), "the store is left as it was");
    }

    /**
     * A store as version 6 wrote it: one trace ingested, no {@code file_stat} column (made from one of this
     * version, the column dropped: version 7 only added it).
     */
    private Path versionSixStore() throws Exception {
        Path db = tmp.resolve("store.duckdb");
        Cli.assertExit(0, Cli.ingestJson(db, TRACE));
        try (Connection c = DuckDb.connect(db, new Properties()); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE files DROP COLUMN file_stat");
        }
        setVersion(db, "6");
        return db;
    }

    private static void setVersion(Path db, String version) throws Exception {
        try (Connection c = DuckDb.connect(db, new Properties()); Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE store_info SET value = '" + version + "' WHERE key = 'schema_version'"));
        }
    }
}
