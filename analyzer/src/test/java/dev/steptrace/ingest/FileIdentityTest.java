package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.steptrace.testsupport.NsysExport.Container;
import dev.steptrace.testsupport.NsysFixtures;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What ingest takes for "the same file" before and after reading it (Ingestor.loadOne). */
class FileIdentityTest {
    @TempDir
    Path tmp;

    @Test
    void theSameFileUntouchedIsStillIt() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        TraceDiscovery.Found trace = found(f);
        assertTrue(FileIdentity.of(trace).isStill(trace));
    }

    /** As rsync finishes a copy: the same bytes and times, renamed over the path, are another file. */
    @Test
    void aCopyRenamedOverThePathIsAnotherFile() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        TraceDiscovery.Found trace = found(f);
        FileIdentity before = FileIdentity.of(trace);
        Path copy = Files.writeString(tmp.resolve(".rank0.json.part"), "{\"traceEvents\": []}");
        Files.setLastModifiedTime(copy, Files.getLastModifiedTime(f));
        Files.move(copy, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertFalse(before.isStill(trace));
    }

    @Test
    void bytesWrittenInPlaceAreAChange() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        FileTime t = Files.getLastModifiedTime(f);
        TraceDiscovery.Found trace = found(f);
        FileIdentity before = FileIdentity.of(trace);
        Files.writeString(f, "{\"traceEvents\": {}}");
        Files.setLastModifiedTime(f, FileTime.fromMillis(t.toMillis() + 1000));
        assertFalse(before.isStill(trace));
        FileIdentity same = FileIdentity.of(trace);
        Files.writeString(f, "{\"traceEvents\": []}  ");
        assertFalse(same.isStill(trace), "a longer file");
    }

    /** Only a read begun {@code SETTLED_MILLIS} or more after the files' last change may be told by their stamp. */
    @Test
    void aStampIsKeptForAReadBegunWellAfterTheLastChange() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        assumeTrue(FileIdentity.stampsKept(f), "skipped: no change times steptrace trusts here");
        FileIdentity id = FileIdentity.of(found(f));
        assertNotNull(id.stamp());
        long changed = ((FileTime) Files.getAttribute(f, "unix:ctime")).toMillis();
        assertEquals(id.stamp(), id.stampOfRead(changed + FileIdentity.SETTLED_MILLIS, id));
        assertNull(id.stampOfRead(changed + FileIdentity.SETTLED_MILLIS - 1, id));
        assertNull(id.stampOfRead(changed - 60_000, id), "a change time ahead of the clock");
    }

    /**
     * A change of permissions moves the change time alone: the file is still the one read (its load stands), but
     * the stamp of that read is not kept, as the files were not the same throughout.
     */
    @Test
    void aChangeOfPermissionsIsNoChangeOfContentButNoStampIsKept() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        assumeTrue(FileIdentity.stampsKept(f), "skipped: no change times steptrace trusts here");
        TraceDiscovery.Found trace = found(f);
        FileIdentity before = FileIdentity.of(trace);
        FileTime changed = (FileTime) Files.getAttribute(f, "unix:ctime");
        // Changed until the change time moves: a tick of the file system's clock is up to a second.
        for (int i = 0; i < 30 && changed.equals(Files.getAttribute(f, "unix:ctime")); i++) {
            Thread.sleep(50);
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(i % 2 == 0 ? "r--------" : "rw-------"));
        }
        FileIdentity after = FileIdentity.of(trace);
        assertTrue(before.isStill(after));
        assertNotEquals(before.stamp(), after.stamp());
        assertNull(before.stampOfRead(changed.toMillis() + FileIdentity.SETTLED_MILLIS, after));
    }

    @Test
    void aFileGoneIsAnError() throws Exception {
        Path f = Files.writeString(tmp.resolve("rank0.json"), "{\"traceEvents\": []}");
        TraceDiscovery.Found trace = found(f);
        FileIdentity before = FileIdentity.of(trace);
        Files.delete(f);
        assertThrows(NoSuchFileException.class, () -> before.isStill(trace));
    }

    /**
     * An nsys Parquet export is its tables: one rewritten in place (same name, same length) is a change,
     * though the directory's own size and time stay as they were.
     */
    @Test
    void aTableOfAParquetExportRewrittenInPlaceIsAChange() throws Exception {
        Path export = tmp.resolve("rank0");
        NsysFixtures.write(NsysFixtures.minimal(), Container.PARQUETDIR, export);
        TraceDiscovery.Found trace = found(export);
        FileIdentity before = FileIdentity.of(trace);
        assertTrue(before.isStill(trace), "nothing changed");

        Path table;
        try (Stream<Path> tables = Files.list(export)) {
            table = tables.filter(p -> p.toString().endsWith(".parquet")).sorted().findFirst().orElseThrow();
        }
        FileTime exportTime = Files.getLastModifiedTime(export);
        long exportSize = Files.size(export);
        byte[] bytes = Files.readAllBytes(table);
        bytes[bytes.length / 2] ^= 1;
        Files.write(table, bytes);
        Files.setLastModifiedTime(table, FileTime.fromMillis(Files.getLastModifiedTime(table).toMillis() + 1000));
        assertEquals(exportTime, Files.getLastModifiedTime(export));
        assertEquals(exportSize, Files.size(export));
        assertFalse(before.isStill(trace));
    }

    /** The trace at {@code path} as ingest finds it. */
    private static TraceDiscovery.Found found(Path path) throws Exception {
        List<TraceDiscovery.Found> traces = TraceDiscovery.discover(List.of(path), Set.of()).traces();
        assertEquals(1, traces.size(), () -> path + ": " + traces);
        return traces.get(0);
    }
}
