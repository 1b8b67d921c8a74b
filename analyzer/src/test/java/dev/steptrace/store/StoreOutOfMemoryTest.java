package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.MainProcess;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DuckDB running out of its memory limit ({@code STEPTRACE_MEMORY_LIMIT}) is one line saying the limit and how to
 * raise it, a fault of the setting and not an internal error: in a file's load (that file fails), in the analysis
 * after ingest (a warning), in a command over the store (its end). Commands run in a JVM of their own, whose
 * environment sets the limit; 4 MB is too little for the repository's sample capture.
 */
class StoreOutOfMemoryTest {
    private static final String ADVICE = "DuckDB ran out of memory (its limit: 4MB): give it more with"
            + " STEPTRACE_MEMORY_LIMIT=8MB, if the machine has it";
    private static final Map<String, String> SMALL = Map.of("STEPTRACE_MEMORY_LIMIT", "4MB");

    @TempDir
    Path tmp;

    private final Path capture = TestData.repoRoot().resolve("sample-traces/h200-tp2-moe-eager/batch16-prefill256");

    @Test
    void aCommandOverTheStoreEndsWithTheLimitAndHowToRaiseIt() throws Exception {
        Path db = tmp.resolve("s.duckdb");
        Cli.assertExit(0, Cli.run("ingest", capture.toString(), "--db", db.toString(), "--no-analysis", "-q"));
        Cli.Result r = MainProcess.run(MainProcess.command(List.of("-Xmx256m"), List.of("report", capture.toString(),
                "--db", db.toString(), "--out", tmp.resolve("out").toString(), "-q")), SMALL);
        assertEquals(1, r.exit(), r::describe);
        assertEquals("steptrace: " + ADVICE + "\n", r.err(), r::describe);
    }

    @Test
    void aFileWhoseLoadRunsOutFailsWithTheLimitAndHowToRaiseIt() throws Exception {
        Cli.Result r = MainProcess.run(MainProcess.command(List.of("-Xmx256m"), List.of("ingest", capture.toString(),
                "--db", tmp.resolve("s.duckdb").toString(), "-q")), SMALL);
        assertEquals(1, r.exit(), r::describe);
        assertTrue(r.err().contains(".pt.trace.json.gz: store error: " + ADVICE + "\n"), r::describe);
        assertTrue(!r.err().contains("internal error") && !r.err().contains("Exception"), r::describe);
    }

    @Test
    void theSizeToSuggestIsTwiceTheLimitInItsOwnUnit() {
        SQLException duckDb = new SQLException("Out of Memory Error: failed to pin block of size 256.0 KiB");
        assertEquals("DuckDB ran out of memory (its limit: 1.5GB): give it more with STEPTRACE_MEMORY_LIMIT=3GB,"
                + " if the machine has it", Store.outOfMemory(new RuntimeException("analysing", duckDb), "1.5GB"));
        assertEquals("DuckDB ran out of memory (its limit: 512MiB): give it more with STEPTRACE_MEMORY_LIMIT=1024MiB,"
                + " if the machine has it", Store.outOfMemory(duckDb, "512MiB"));
        assertEquals("DuckDB ran out of memory (its limit: 1G): give it more with STEPTRACE_MEMORY_LIMIT=2G,"
                + " if the machine has it", Store.outOfMemory(duckDb, "1G"));
        assertEquals("DuckDB ran out of memory (its limit: 1gigabyte): give it more with STEPTRACE_MEMORY_LIMIT,"
                + " if the machine has it", Store.outOfMemory(duckDb, "1gigabyte"));
        assertNull(Store.outOfMemory(new SQLException("Catalog Error: Table with name x does not exist!"), "512MB"));
    }

    @Test
    void spillingPastTheRoomOnDiskSaysToFreeDiskSpace() {
        // DuckDB 1.5's words when its temporary files reach max_temp_directory_size (90% of the free disk space).
        SQLException full = new SQLException("Out of Memory Error: failed to offload data block of size 256.0 KiB"
                + " (1.7 MiB/1.9 MiB used).\nThis limit was set by the 'max_temp_directory_size' setting.");
        assertEquals("DuckDB ran out of room for its temporary files (at most 90% of the disk space free beside the"
                + " store, or in the temporary directory for a read-only store): free disk space there",
                Store.outOfMemory(full, "512MB"));
    }
}
