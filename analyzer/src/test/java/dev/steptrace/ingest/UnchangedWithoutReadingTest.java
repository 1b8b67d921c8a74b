package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An ingest tells a file unchanged without reading it when the file's inode, size, modification and change
 * times are those stored with its content ({@code files.file_stat}). That no read happened is shown by the
 * store's content hash made wrong beforehand: a read would find the file's bytes differ from it and load the
 * file again. A change the check must still see: bytes rewritten in place at the same size with the
 * modification time set back (the change time moves), and a file changed too recently to be stamped.
 */
class UnchangedWithoutReadingTest {
    private static final String TRACE = "rank0.pt.trace.json";
    @TempDir
    static Path tmp;
    /** Files written before the tests, old enough by the time they run to be stamped when read. */
    static Path settled;

    @BeforeAll
    static void writeAndLetSettle() throws Exception {
        settled = Files.createDirectories(tmp.resolve("settled"));
        for (String name : new String[] {"a", "b", "c", "d"}) {
            Files.copy(TestData.baseTrace(), Files.createDirectories(settled.resolve(name)).resolve(TRACE));
        }
        assumeTrue(FileIdentity.stampsKept(settled.resolve("a").resolve(TRACE)),
                "skipped: the temp directory's file system keeps no change times steptrace trusts, so every ingest"
                        + " reads its files");
        // d: ingested, then changed at the same size, all before the wait.
        Path d = settled.resolve("d");
        ingest("ingested", tmp.resolve("d.duckdb"), d);
        renameAKernel(d.resolve(TRACE));
        Thread.sleep(FileIdentity.SETTLED_MILLIS + 200);
    }

    @Test
    void aSettledFileIsToldUnchangedUnread() throws Exception {
        Case k = settledCase("a");
        ingest("ingested", k.db(), k.dir());
        String stat = fileStat(k.db(), k.trace());
        assertNotNull(stat, "a file changed long before its read is stamped");
        // The stamp names the file's inode and size as the file system gives them.
        assertTrue(stat.contains("ino=" + Files.getAttribute(k.trace(), "unix:ino")), stat);
        assertTrue(stat.contains("size=" + Files.size(k.trace())), stat);
        assertToldUnchangedUnread(k.db(), k.dir(), k.trace());
    }

    @Test
    void bytesRewrittenAtTheSameSizeAndTimeAreLoadedAgain() throws Exception {
        Case k = settledCase("b");
        ingest("ingested", k.db(), k.dir());
        assertNotNull(fileStat(k.db(), k.trace()));
        long kernels = kernels(k.db());
        FileTime modified = Files.getLastModifiedTime(k.trace());
        renameAKernel(k.trace());
        Files.setLastModifiedTime(k.trace(), modified);
        ingest("ingested", k.db(), k.dir());
        assertEquals(kernels - 1, kernels(k.db()), "the renamed kernel is no kernel any more");
        assertNotStampedIfStillFresh(k.db(), k.trace());
    }

    @Test
    void aTouchedFileIsReadOnceThenStampedAnew() throws Exception {
        Case k = settledCase("c");
        ingest("ingested", k.db(), k.dir());
        String first = fileStat(k.db(), k.trace());
        assertNotNull(first);
        Files.setLastModifiedTime(k.trace(), FileTime.fromMillis(Files.getLastModifiedTime(k.trace()).toMillis() - 60_000));
        Thread.sleep(FileIdentity.SETTLED_MILLIS + 200);
        ingest("unchanged", k.db(), k.dir());
        String second = fileStat(k.db(), k.trace());
        assertNotNull(second);
        assertNotEquals(first, second, "the stamp follows the new times");
        assertToldUnchangedUnread(k.db(), k.dir(), k.trace());
    }

    @Test
    void aFileChangedJustNowIsNotStamped() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("fresh"));
        Path trace = Files.copy(TestData.baseTrace(), dir.resolve(TRACE));
        Path db = tmp.resolve("fresh.duckdb");
        ingest("ingested", db, dir);
        assertNotStampedIfStillFresh(db, trace);
        // Read again (as no stamp says otherwise), it is found unchanged by its bytes.
        ingest("unchanged", db, dir);
    }

    /** A file of the same size changed a while before the ingest that finds it: loaded, and stamped as read. */
    @Test
    void aFileChangedAWhileAgoIsLoadedAndStamped() throws Exception {
        Case k = settledCase("d");
        long kernels = kernels(k.db());
        ingest("ingested", k.db(), k.dir());
        assertEquals(kernels - 1, kernels(k.db()));
        assertNotNull(fileStat(k.db(), k.trace()));
        assertToldUnchangedUnread(k.db(), k.dir(), k.trace());
    }

    /** A directory of {@link #settled} with its trace, and the store a test ingests it into. */
    private record Case(Path dir, Path trace, Path db) {}

    private static Case settledCase(String name) {
        Path dir = settled.resolve(name);
        return new Case(dir, dir.resolve(TRACE), tmp.resolve(name + ".duckdb"));
    }

    /** Ingests {@code dir} into {@code db} and checks the status of its one trace. */
    private static void ingest(String status, Path db, Path dir) {
        Cli.Result r = Cli.ingestJson(db, dir);
        Cli.assertExit(0, r);
        assertEquals(status, r.file(TRACE).path("status").asText(), r::describe);
    }

    /** The first kernel's category made another of the same length, in place: the file keeps its size. */
    static void renameAKernel(Path trace) throws Exception {
        String json = Files.readString(trace);
        int at = json.indexOf("\"cat\": \"kernel\"");
        assertTrue(at > 0, "the base trace has a kernel");
        try (RandomAccessFile f = new RandomAccessFile(trace.toFile(), "rw")) {
            f.seek(json.substring(0, at).getBytes(StandardCharsets.UTF_8).length);
            f.write("\"cat\": \"kerneX\"".getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * A file changed just now is not stamped, so the next ingest reads it; unless the machine was so slow that
     * the ingest began {@code SETTLED_MILLIS} after the change (then nothing is asserted).
     */
    private static void assertNotStampedIfStillFresh(Path db, Path trace) throws Exception {
        long changed = ((FileTime) Files.getAttribute(trace, "unix:ctime")).toMillis();
        String stat = fileStat(db, trace);
        if (System.currentTimeMillis() < changed + FileIdentity.SETTLED_MILLIS) {
            assertNull(stat);
        }
    }

    private static String fileStat(Path db, Path trace) throws Exception {
        try (StoreDb s = StoreDb.open(db)) {
            return s.string("SELECT file_stat FROM files WHERE path = '" + trace.toRealPath() + "'");
        }
    }

    private static long kernels(Path db) throws Exception {
        try (StoreDb s = StoreDb.open(db)) {
            return s.count("SELECT count(*) FROM gpu_ops WHERE kind = 'kernel'");
        }
    }

    /**
     * The next ingest tells the trace unchanged without reading it: the stored content hash is made one that no
     * read of the file gives, so a read would load it again.
     */
    private static void assertToldUnchangedUnread(Path db, Path dir, Path trace) throws Exception {
        try (Connection c = DuckDb.connect(db, new Properties()); Statement st = c.createStatement()) {
            assertEquals(1, st.executeUpdate("UPDATE files SET content_hash = 'crc32c:00000000-crc32:00000000'"
                    + " WHERE path = '" + trace.toRealPath() + "'"));
        }
        ingest("unchanged", db, dir);
    }
}
