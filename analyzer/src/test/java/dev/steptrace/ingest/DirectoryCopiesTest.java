package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.steptrace.testsupport.Gzip;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copies within a directory: the same bytes, or the same content once decompressed, told by the trailers
 * and confirmed by inflating; a damaged gzip file is nobody's original.
 */
class DirectoryCopiesTest {
    private static final byte[] JSON = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}]}"
            .getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    @Test
    void theSameBytesAreACopyOfTheFirst() throws Exception {
        DirectoryCopies copies = new DirectoryCopies();
        assertNull(copies.claim(plain("a.json", JSON)));
        assertEquals(new DirectoryCopies.Copy(tmp.resolve("a.json"), false), copies.claim(plain("b.json", JSON)));
        // The same bytes in another directory: no copy.
        Files.createDirectories(tmp.resolve("other"));
        assertNull(copies.claim(plain("other/a.json", JSON)));
    }

    @Test
    void aGzipFileOfAPlainFilesContentIsItsCopyOnceDecompressed() throws Exception {
        DirectoryCopies copies = new DirectoryCopies();
        assertNull(copies.claim(plain("a.json", JSON)));
        assertEquals(new DirectoryCopies.Copy(tmp.resolve("a.json"), true), copies.claim(gzip("a.json.gz", Gzip.of(JSON))));
    }

    /**
     * The first file of a trailer is damaged (a byte of its deflate data changed, its trailer as written): the
     * two intact files after it that hold one content are still each other's copies.
     */
    @Test
    void aDamagedFirstFileLeavesTheLaterOnesComparedWithEachOther() throws Exception {
        byte[] damaged = Gzip.of(JSON);
        damaged[damaged.length / 2] ^= 0x55;
        DirectoryCopies copies = new DirectoryCopies();
        DirectoryCopies.Candidate first = gzip("a.json.gz", damaged);
        assertNull(copies.claim(first));
        assertNull(first.decompressed());
        assertNull(copies.claim(plain("b.json", JSON)));
        assertEquals(new DirectoryCopies.Copy(tmp.resolve("b.json"), true), copies.claim(gzip("c.json.gz", Gzip.of(JSON))));
    }

    private DirectoryCopies.Candidate plain(String name, byte[] bytes) throws Exception {
        Path p = Files.write(tmp.resolve(name), bytes);
        Fingerprint f = Fingerprint.of(p, java.util.List.of(p));
        return DirectoryCopies.Candidate.of(p, true, false, f, null);
    }

    private DirectoryCopies.Candidate gzip(String name, byte[] bytes) throws Exception {
        Path p = Files.write(tmp.resolve(name), bytes);
        return DirectoryCopies.Candidate.of(p, true, true, Fingerprint.of(p, java.util.List.of(p)), Fingerprint.gzipContent(p));
    }

    @Test
    void aPlainFilesContentIsWhatItsGzipTrailerWouldSay() throws Exception {
        // The check the test above relies on, from the JDK's CRC-32 rather than Fingerprint's own parse.
        CRC32 crc = new CRC32();
        crc.update(JSON);
        DirectoryCopies.Candidate a = plain("a.json", JSON);
        assertEquals(new Fingerprint.Content(crc.getValue(), JSON.length), a.content());
        assertEquals(a.content(), gzip("a.json.gz", Gzip.of(JSON)).content());
    }
}
