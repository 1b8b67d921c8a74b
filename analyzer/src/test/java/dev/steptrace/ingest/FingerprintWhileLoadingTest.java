package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.Gzip;
import dev.steptrace.testsupport.StoreDb;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new file's fingerprint is taken while it is parsed (one read): the stored size and content hash
 * are those of the file's bytes, computed here with the JDK's CRCs, whether the reader reads the file
 * to its end or stops before it; and the next ingest finds the file unchanged.
 */
class FingerprintWhileLoadingTest {
    @TempDir
    Path tmp;

    @Test
    void plainGzipAndStoppedEarlyFilesGetTheirBytesFingerprint() throws Exception {
        byte[] json = Files.readAllBytes(TestData.baseTrace());
        Path capture = Files.createDirectories(tmp.resolve("capture"));
        Path plain = Files.write(capture.resolve("rank0.pt.trace.json"), json);
        // A space before the document: with rank0's very content it would be skipped as its copy.
        byte[] spaced = new byte[json.length + 1];
        spaced[0] = ' ';
        System.arraycopy(json, 0, spaced, 1, json.length);
        Path gzip = Files.write(capture.resolve("rank1.pt.trace.json.gz"), Gzip.of(spaced));
        // Bytes after the document: the reader stops at the end of the JSON, before the end of the file.
        byte[] trailing = Arrays.copyOf(json, json.length + 20);
        System.arraycopy("  {\"not\": \"read\"}   ".getBytes(StandardCharsets.US_ASCII), 0, trailing, json.length, 20);
        Path stopped = Files.write(capture.resolve("rank2.pt.trace.json"), trailing);
        Path db = tmp.resolve("store.duckdb");
        Cli.Result first = Cli.ingestJson(db, capture);
        Cli.assertExit(0, first);
        try (StoreDb s = StoreDb.open(db)) {
            for (Path p : new Path[] {plain, gzip, stopped}) {
                byte[] bytes = Files.readAllBytes(p);
                String where = " WHERE path = '" + p.toRealPath() + "'";
                assertEquals(bytes.length, s.count("SELECT size_bytes FROM files" + where), p::toString);
                assertEquals(hash(bytes), s.string("SELECT content_hash FROM files" + where), p::toString);
            }
        }
        Cli.Result again = Cli.ingestJson(db, capture);
        Cli.assertExit(0, again);
        for (Path p : new Path[] {plain, gzip, stopped}) {
            assertEquals("unchanged", again.file(p.getFileName().toString()).path("status").asText(), again::describe);
        }
    }

    static String hash(byte[] bytes) {
        CRC32C c = new CRC32C();
        c.update(bytes);
        CRC32 d = new CRC32();
        d.update(bytes);
        return String.format("crc32c:%08x-crc32:%08x", c.getValue(), d.getValue());
    }

}
