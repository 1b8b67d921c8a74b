package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.MainProcess;
import dev.steptrace.testsupport.StoreDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file whose load fails leaves the store as it was for what depends on it: the rows of the file it was
 * renamed from stay, and a copy of it is not taken for stored. The load is made to fail by running out of heap
 * (a trace with a name of 15 million characters, at {@code -Xmx64m}: the bad-input case heap-exhausted).
 */
class FailedLoadTest {
    private static final List<String> SMALL_HEAP = List.of("-Xmx64m", "-XX:+UseParallelGC");

    @TempDir
    Path tmp;

    @Test
    void aRenamedFileThatFailsToLoadLeavesTheRowsOfItsOldNameInUse() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path old = run.resolve("rank1.pt.trace.json");
        BadInputCorpusTest.writeHugeName(old);
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.ingestJson(db, run));
        Path renamed = Files.move(old, run.resolve("r1.pt.trace.json"));

        Cli.Result r = MainProcess.run(MainProcess.command(SMALL_HEAP, List.of("ingest", renamed.toString(), "--db",
                db.toString(), "--json", "-q", "--threads", "1")));
        assertTrue(r.file("r1.pt.trace.json").path("reason").asText().startsWith("ran out of Java heap"), r::describe);
        assertEquals("no longer on disk (renamed r1.pt.trace.json?, which did not load: its rows stay in use)",
                r.file("rank1.pt.trace.json").path("reason").asText());
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(List.of("rank1.pt.trace.json"), s.strings("SELECT parse_filename(path) FROM files"));
        }
    }

    @Test
    void aCopyOfAFileThatFailsToLoadIsNotTakenForItsEarlierRows() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path a = Files.copy(TestData.baseTrace(), run.resolve("a.pt.trace.json"));
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.ingestJson(db, run));
        // a is written again with other content, copied beside it; its load now fails.
        BadInputCorpusTest.writeHugeName(a);
        Files.copy(a, run.resolve("z.pt.trace.json"));

        Cli.Result r = MainProcess.run(MainProcess.command(SMALL_HEAP, List.of("ingest", run.toString(), "--db",
                db.toString(), "--json", "-q", "--threads", "1")));
        assertEquals(1, r.exit(), r::describe);
        assertTrue(r.file("a.pt.trace.json").path("reason").asText().startsWith("ran out of Java heap"), r::describe);
        assertEquals("same content as a.pt.trace.json (a copy of the same rank?), which did not load (its rows are"
                + " of its earlier content)", r.file("z.pt.trace.json").path("reason").asText());
        assertTrue(r.file("z.pt.trace.json").path("copy_of").isNull(), r::describe);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(List.of("a.pt.trace.json 2"), s.strings("SELECT parse_filename(path) || ' ' || n_kernel FROM files"));
        }
    }
}
