package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.ingest.FileOutcome.Status;
import dev.steptrace.store.Store;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.StoreDb;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that change after planning read them and before their load ({@link Ingestor#beforeLoad}): planning
 * decides from what it read, the store holds what the load read.
 */
class ChangedBeforeItsLoadTest {
    private static final IngestOptions ONE_THREAD = new IngestOptions(1, false, true);
    private static final String TRACE = "rank0.pt.trace.json";

    @TempDir
    Path tmp;

    /**
     * Changed at its stored size, the file is read by planning (its size alone cannot tell it unchanged) and found
     * changed; then, before its load, it is written back as it was. The store must hold the content the load
     * read, under that content's hash: the planning read's hash would be of bytes no longer on disk.
     */
    @Test
    void aFileRewrittenAfterPlanningIsStoredAsItsLoadReadIt() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path trace = Files.copy(TestData.baseTrace(), run.resolve(TRACE));
        byte[] original = Files.readAllBytes(trace);
        Path db = tmp.resolve("st.duckdb");
        assertEquals(Status.INGESTED, ingest(db, run, path -> { }).get(0).status());
        UnchangedWithoutReadingTest.renameAKernel(trace);

        List<FileOutcome> again = ingest(db, run, path -> {
            try {
                Files.write(trace, original);
                // Another modification time than planning saw, on file systems whose clock ticks coarsely too.
                Files.setLastModifiedTime(trace, FileTime.from(Instant.now().minusSeconds(60)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertEquals(Status.INGESTED, again.get(0).status(), again::toString);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(FingerprintWhileLoadingTest.hash(original), s.string("SELECT content_hash FROM files"));
            assertEquals(kernelsIn(original), s.count("SELECT count(*) FROM gpu_ops WHERE kind = 'kernel'"));
        }
        assertEquals(Status.UNCHANGED, ingest(db, run, path -> { }).get(0).status());
    }

    /**
     * A copy of a file whose load fails (here: the file gone when its load begins) is loaded in its place, so that
     * their content is in the store; the original's failure is reported as it is.
     */
    @Test
    void aCopyIsLoadedInPlaceOfAnOriginalThatFailed() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path a = Files.copy(TestData.baseTrace(), run.resolve("a.pt.trace.json"));
        Files.copy(TestData.baseTrace(), run.resolve("z.pt.trace.json"));
        Path db = tmp.resolve("st.duckdb");

        List<FileOutcome> outcomes = ingest(db, run, path -> {
            if (path.getFileName().equals(a.getFileName())) {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        FileOutcome first = named(outcomes, "a.pt.trace.json");
        assertEquals(Status.FAILED, first.status(), outcomes::toString);
        assertTrue(first.reason().startsWith("cannot read"), first::reason);
        assertEquals(Status.INGESTED, named(outcomes, "z.pt.trace.json").status(), outcomes::toString);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(List.of("z.pt.trace.json " + kernelsIn(Files.readAllBytes(TestData.baseTrace()))),
                    s.strings("SELECT parse_filename(path) || ' ' || n_kernel FROM files"));
        }
    }

    private static List<FileOutcome> ingest(Path db, Path dir, Consumer<Path> beforeLoad) throws Exception {
        try (Store store = Store.open(db)) {
            Ingestor ingestor = new Ingestor(store, ONE_THREAD);
            ingestor.beforeLoad = beforeLoad;
            return ingestor.ingest(List.of(dir)).files();
        }
    }

    private static FileOutcome named(List<FileOutcome> outcomes, String name) {
        return outcomes.stream().filter(o -> o.path().getFileName().toString().equals(name)).findFirst().orElseThrow();
    }

    /** The kernel events of a trace, counted in its text. */
    private static long kernelsIn(byte[] json) {
        Matcher m = Pattern.compile("\"cat\":\\s*\"kernel\"").matcher(new String(json, StandardCharsets.UTF_8));
        long n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
