package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What ingest takes for "the same file" before and after reading it (Ingestor.loadOne). */
class FileIdentityTest {
    @TempDir
    Path tmp;

    @Test
    void theSameFileUntouchedIsStillIt() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        assertTrue(FileIdentity.of(f).isStill(f));
    }

    /** As rsync finishes a copy: the same bytes and times, renamed over the path, are another file. */
    @Test
    void aCopyRenamedOverThePathIsAnotherFile() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        FileIdentity before = FileIdentity.of(f);
        Path copy = Files.writeString(tmp.resolve(".rank0.json.part"), "{\"traceEvents\": []}");
        Files.setLastModifiedTime(copy, Files.getLastModifiedTime(f));
        Files.move(copy, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertFalse(before.isStill(f));
    }

    @Test
    void bytesWrittenInPlaceAreAChange() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        FileTime t = Files.getLastModifiedTime(f);
        FileIdentity before = FileIdentity.of(f);
        Files.writeString(f, "{\"traceEvents\": {}}");
        Files.setLastModifiedTime(f, FileTime.fromMillis(t.toMillis() + 1000));
        assertFalse(before.isStill(f));
        FileIdentity same = FileIdentity.of(f);
        Files.writeString(f, "{\"traceEvents\": []}  ");
        assertFalse(same.isStill(f), "a longer file");
    }

    @Test
    void aFileGoneIsAnError() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{}");
        FileIdentity before = FileIdentity.of(f);
        Files.delete(f);
        assertThrows(NoSuchFileException.class, () -> before.isStill(f));
    }
}
