package dev.steptrace.ingest.kineto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.Ingestor;
import dev.steptrace.store.DuckDb;
import dev.steptrace.store.Sql;
import dev.steptrace.store.Store;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file of several chunks loaded with its event list scanned on two threads ({@link ParallelScan}, as
 * {@code steptrace ingest} does where a file has cores to spare) and with everything on the file's thread:
 * every table of the two stores holds the same rows (EXCEPT ALL both ways), name ids and track ids included.
 */
class ParallelScanIngestTest {
    private static final List<String> TABLES = List.of("gpu_ops", "cpu_ops", "launches", "names", "tracks", "devices",
            "comm_meta", "op_shapes");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void severalScanThreadsStoreWhatOneStores(boolean gzip) throws Exception {
        Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() >= 2,
                "one core: a file's scan is not split, there is nothing to compare");
        Path traces = dir.resolve("traces");
        List<String> synth = new java.util.ArrayList<>(List.of("synth", "--preset", "moe-tp8-eager", "--ranks", "1",
                "--steps", "2", "--target-size", gzip ? "24MB" : "6MB", "--out", traces.toString(), "--quiet"));
        if (!gzip) {
            synth.add("--no-gzip");
        }
        assertEquals(0, Cli.run(synth.toArray(new String[0])).exit());
        Path trace;
        try (Stream<Path> files = Files.list(traces)) {
            trace = files.filter(f -> f.getFileName().toString().contains(".pt.trace.json")).findFirst().orElseThrow();
        }
        // On disk (compressed or not) it is more than a chunk, so the ingest scans it on the threads asked.
        long size = Files.size(trace);
        assertTrue(size > ParallelScan.CHUNK_BYTES, () -> trace + ": " + size + " bytes");
        Path alone = dir.resolve("alone.duckdb");
        Path split = dir.resolve("split.duckdb");
        ingest(trace, alone, false);
        ingest(trace, split, true);
        try (Connection c = DuckDb.inMemory()) {
            Sql.exec(c, "ATTACH '" + alone + "' AS alone (READ_ONLY)");
            Sql.exec(c, "ATTACH '" + split + "' AS split (READ_ONLY)");
            for (String t : TABLES) {
                assertEquals(0, Sql.count(c, "SELECT count(*) FROM (SELECT * FROM alone." + t + " EXCEPT ALL SELECT * FROM split." + t + ")"), t);
                assertEquals(0, Sql.count(c, "SELECT count(*) FROM (SELECT * FROM split." + t + " EXCEPT ALL SELECT * FROM alone." + t + ")"), t);
            }
            assertTrue(Sql.count(c, "SELECT count(*) FROM split.gpu_ops") > 2_000, "a trace of many events");
            assertEquals(Sql.count(c, "SELECT count(*) FROM alone.launches"), Sql.count(c, "SELECT count(*) FROM split.launches"));
        }
    }

    private static void ingest(Path trace, Path db, boolean helperThreads) throws Exception {
        try (Store store = Store.open(db)) {
            new Ingestor(store, new IngestOptions(1, false, helperThreads, helperThreads ? 2 : 1)).ingest(List.of(trace));
        }
    }
}
