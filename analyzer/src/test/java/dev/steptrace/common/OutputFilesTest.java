package dev.steptrace.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A document whose writing fails half way (a full disk, here a write that throws after some bytes)
 * leaves nothing: no empty or partial file, no temporary file, and an earlier good document in place.
 * The bad-input corpus provokes a real full disk where it can mount a tmpfs; this is the same rule
 * without one.
 */
class OutputFilesTest {
    @TempDir
    Path dir;

    @Test
    void aCompleteDocumentReplacesTheOldOne() throws IOException {
        Path report = dir.resolve("report.json");
        Files.writeString(report, "old");
        OutputFiles.write(report, "{\"new\": true}\n");
        assertEquals("{\"new\": true}\n", Files.readString(report));
        assertEquals(List.of("report.json"), names());
    }

    @Test
    void aFailedWriteLeavesNothingAndKeepsTheOldDocument() throws IOException {
        Path report = dir.resolve("report.json");
        IOException full = assertThrows(IOException.class, () -> OutputFiles.write(report, out -> {
            out.write("{\"half\": ".getBytes());
            throw new IOException("No space left on device");
        }));
        assertEquals("No space left on device", full.getMessage());
        assertEquals(List.of(), names());

        Files.writeString(report, "good");
        assertThrows(IOException.class, () -> OutputFiles.write(report, out -> {
            throw new IOException("No space left on device");
        }));
        assertEquals("good", Files.readString(report));
        assertEquals(List.of("report.json"), names());
    }

    /** Two commands writing one document at once: each writes a file of its own, the last complete one wins. */
    @Test
    void twoWritersOfOneDocumentNeverShareATemporaryFile() throws Exception {
        Path timeline = dir.resolve("timeline.json");
        CountDownLatch bothWriting = new CountDownLatch(2);
        List<Future<?>> writers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (String who : List.of("a", "b")) {
                writers.add(pool.submit(() -> {
                    OutputFiles.write(timeline, out -> {
                        bothWriting.countDown();
                        try {
                            bothWriting.await();
                        } catch (InterruptedException e) {
                            throw new IOException(e);
                        }
                        for (int i = 0; i < 1000; i++) {
                            out.write(who.repeat(100).getBytes(StandardCharsets.US_ASCII));
                        }
                    });
                    return null;
                }));
            }
            for (Future<?> w : writers) {
                w.get();
            }
        } finally {
            pool.shutdown();
        }
        String written = Files.readString(timeline);
        assertTrue(written.equals("a".repeat(100_000)) || written.equals("b".repeat(100_000)), "mixed document");
        assertEquals(List.of("timeline.json"), names());
    }

    /** The temporary file of a steptrace killed while writing goes on the next write into its directory. */
    @Test
    void aKilledWritersTemporaryFileGoesOnTheNextWrite() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path leftover = Files.writeString(dir.resolve(".report.html.steptrace." + gone.pid() + ".123.tmp"), "<html>half");
        Path inProgress = Files.writeString(dir.resolve(".report.md.steptrace." + ProcessHandle.current().pid()
                + ".456.tmp"), "# half");
        Path someoneElses = Files.writeString(dir.resolve(".notes.1.2.tmp"), "mine");
        OutputFiles.write(dir.resolve("report.json"), "{}\n");
        assertFalse(Files.exists(leftover), "a dead process's temporary file stayed");
        assertTrue(Files.exists(inProgress), "a running writer's temporary file went");
        assertTrue(Files.exists(someoneElses), "a file steptrace did not write went");
    }

    /** A capture's name from the store is one folder under the output directory, whatever it holds. */
    @Test
    void aNameFromTheStoreIsOneFolderName() {
        assertEquals("h200-tp2-moe_decode.v2", OutputFiles.folderName("h200-tp2-moe_decode.v2"));
        assertEquals("..%2F..%2Fx", OutputFiles.folderName("../../x"));
        assertEquals("%2E%2E", OutputFiles.folderName(".."));
        assertEquals("%2E", OutputFiles.folderName("."));
        assertEquals("_", OutputFiles.folderName(""));
        assertEquals("a%5Cb%25c", OutputFiles.folderName("a\\b%c"));
        assertEquals("k%1B[2J%E2%80%AEx", OutputFiles.folderName("k\u001b[2J\u202ex"));
        for (String name : List.of("../../x", "..", ".", "", "/etc", "a/../../b")) {
            Path folder = dir.resolve(OutputFiles.folderName(name)).normalize();
            assertEquals(dir, folder.getParent(), name);
        }
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
