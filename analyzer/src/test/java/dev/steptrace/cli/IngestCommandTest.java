package dev.steptrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The line that ends {@code steptrace ingest}'s summary: what this run did to the store. */
class IngestCommandTest {
    @TempDir
    Path tmp;

    /**
     * A run's folder of three ranks, then one rank deleted and another overwritten with text: nothing is loaded,
     * but the rows of both go, which the summary says instead of "up to date"; ingested again, nothing changes.
     */
    @Test
    void rowsRemovedAreSaidAndUpToDateOnlyWhenNothingChanged() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        for (int rank = 0; rank < 3; rank++) {
            Files.writeString(run.resolve("rank" + rank + ".pt.trace.json"), trace(rank));
        }
        Path db = tmp.resolve("st.duckdb");
        Cli.Result first = ingest(run, db);
        Cli.assertExit(0, first);
        assertTrue(lastLine(first).startsWith("loaded 3 file(s), "), first::describe);

        Files.delete(run.resolve("rank1.pt.trace.json"));
        Files.writeString(run.resolve("rank2.pt.trace.json"), "not a trace\n");
        Cli.Result removed = ingest(run, db);
        Cli.assertExit(0, removed);
        assertEquals("nothing to load; removed the rows of 2 file(s) no longer on disk, no longer traces or now copies from " + db,
                lastLine(removed), removed::describe);
        assertFalse(removed.out().contains("up to date"), removed::describe);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(1, s.count("SELECT count(*) FROM files"));
        }

        Cli.Result again = ingest(run, db);
        Cli.assertExit(0, again);
        assertEquals("nothing to load: the store " + db + " is up to date", lastLine(again), again::describe);
    }

    private static Cli.Result ingest(Path dir, Path db) {
        return Cli.run("ingest", dir.toString(), "--db", db.toString(), "--quiet");
    }

    private static String lastLine(Cli.Result r) {
        List<String> lines = r.out().lines().toList();
        return lines.get(lines.size() - 1);
    }

    /** A Kineto trace of one step holding one kernel; each rank's differs, so none is a copy of another. */
    private static String trace(int rank) {
        return "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": " + rank + ", \"world_size\": 3}, \"traceEvents\": [\n"
                + "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1,"
                + " \"ts\": 1000, \"dur\": 100},\n"
                + "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1010, \"dur\": 5,"
                + " \"args\": {\"device\": 0, \"stream\": 7}}\n"
                + "]}\n";
    }
}
