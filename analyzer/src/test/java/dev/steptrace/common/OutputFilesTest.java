package dev.steptrace.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
