package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GzipInput} against gzip files built here byte by byte (RFC 1952): what it hands out, and how
 * its damage ends the content. Expected bytes come from the input the files were built from, and
 * for corrupt data from inflating one output byte at a time with {@link Inflater}.
 */
class GzipInputTest {
    private static final byte[] TEXT = text();

    @TempDir
    Path tmp;

    @Test
    void everyHeaderFieldIsSkippedAndTheContentChecked() throws Exception {
        // FTEXT, FEXTRA, FNAME, FCOMMENT and FHCRC all set: gzip's optional fields, as other tools write them.
        byte[] extra = {'A', 'B', 3, 0, 1, 2, 3};
        byte[] file = member(TEXT, 0x1F, extra, "rank0.pt.trace.json", "a comment", true);
        assertArrayEquals(TEXT, readAll(file));
    }

    @Test
    void membersOneAfterAnotherAreOneContent() throws Exception {
        byte[] a = Arrays.copyOfRange(TEXT, 0, 1000);
        byte[] b = Arrays.copyOfRange(TEXT, 1000, TEXT.length);
        assertArrayEquals(TEXT, readAll(concat(member(a), member(new byte[0]), member(b))));
    }

    @Test
    void aWrongCrcEndsTheContentAfterTheMemberAsCorrupt() throws Exception {
        byte[] second = member(Arrays.copyOfRange(TEXT, 1000, TEXT.length));
        second[second.length - 8] ^= 1;
        Damage d = read(concat(member(Arrays.copyOfRange(TEXT, 0, 1000)), second));
        assertArrayEquals(TEXT, d.content, "every byte is handed out before the check");
        assertEquals("gzip member 2 fails its CRC-32 check", d.damage.getMessage());
        assertEquals(1000, d.damage.suspectFrom());
    }

    @Test
    void aWrongLengthEndsTheContentAsCorrupt() throws Exception {
        byte[] file = member(TEXT);
        file[file.length - 4] ^= 1;
        Damage d = read(file);
        assertArrayEquals(TEXT, d.content);
        assertTrue(d.damage.getMessage().startsWith("gzip member 1 fails its length check"), d.damage.getMessage());
        assertEquals(0, d.damage.suspectFrom());
    }

    @Test
    void aCutEndsTheContentWithWhatWasThere() throws Exception {
        byte[] file = member(TEXT);
        Damage trailer = read(Arrays.copyOf(file, file.length - 2));
        assertArrayEquals(TEXT, trailer.content);
        assertEquals("gzip data cut short in the trailer of member 1 (its CRC-32 cannot be checked)",
                trailer.damage.getMessage());
        assertEquals(-1, trailer.damage.suspectFrom());

        Damage data = read(Arrays.copyOf(file, file.length / 2));
        assertArrayEquals(Arrays.copyOf(TEXT, data.content.length), data.content);
        assertEquals("gzip data cut short (truncated) in member 1", data.damage.getMessage());
    }

    @Test
    void bytesAfterTheLastMemberAreReportedNotRead() throws Exception {
        Damage d = read(concat(member(TEXT), "junk".getBytes(StandardCharsets.US_ASCII)));
        assertArrayEquals(TEXT, d.content);
        int at = member(TEXT).length;
        assertEquals("4 bytes after the end of the gzip data (from byte " + at + " of the file) are not gzip: not read",
                d.damage.getMessage());
        assertEquals(-1, d.damage.suspectFrom());
    }

    @Test
    void aBrokenHeaderOfALaterMemberKeepsTheEarlierOnes() throws Exception {
        byte[] second = member(TEXT);
        second[3] = (byte) 0x20; // a reserved flag bit
        byte[] first = member(TEXT);
        Damage d = read(concat(first, second));
        assertArrayEquals(TEXT, d.content);
        assertEquals("corrupt gzip header of member 2 at byte " + first.length + " of the file (reserved flag bits set)",
                d.damage.getMessage());
        byte[] badHeaderCrc = member(TEXT, 0x02, null, null, null, true);
        badHeaderCrc[10] ^= 1;
        assertEquals("corrupt gzip header of member 1 at byte 0 of the file (header CRC mismatch)",
                read(badHeaderCrc).damage.getMessage());
    }

    /**
     * Wherever a byte of the deflate data is flipped, the content handed out is exactly what inflating
     * one byte at a time yields before the data turns out corrupt (or all of it, then a failed check or
     * a cut): nothing good is lost with the bad data, and the flip never goes unnoticed.
     */
    @Test
    void corruptDeflateDataLosesNothingBeforeIt() throws Exception {
        byte[] file = member(TEXT);
        for (int p = 10; p < file.length - 8; p += 7) {
            byte[] damaged = file.clone();
            damaged[p] ^= 0x10;
            Damage d = read(damaged);
            byte[] expected = inflateByteByByte(damaged, 10);
            assertArrayEquals(expected, d.content, "flip at " + p);
            assertTrue(d.damage != null, "flip at " + p + " went unnoticed");
        }
    }

    // ---- building gzip files ----

    private static byte[] member(byte[] content) {
        return member(content, 0, null, null, null, false);
    }

    private static byte[] member(byte[] content, int flags, byte[] extra, String name, String comment, boolean headerCrc) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {0x1F, (byte) 0x8B, 8, (byte) flags, 0, 0, 0, 0, 0, 3});
        if (extra != null) {
            out.write(extra.length & 0xFF);
            out.write(extra.length >> 8);
            out.writeBytes(extra);
        }
        if (name != null) {
            out.writeBytes(name.getBytes(StandardCharsets.ISO_8859_1));
            out.write(0);
        }
        if (comment != null) {
            out.writeBytes(comment.getBytes(StandardCharsets.ISO_8859_1));
            out.write(0);
        }
        if (headerCrc) {
            CRC32 crc = new CRC32();
            crc.update(out.toByteArray());
            out.write((int) crc.getValue() & 0xFF);
            out.write((int) (crc.getValue() >> 8) & 0xFF);
        }
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        deflater.setInput(content);
        deflater.finish();
        byte[] buf = new byte[4096];
        while (!deflater.finished()) {
            out.write(buf, 0, deflater.deflate(buf));
        }
        deflater.end();
        CRC32 crc = new CRC32();
        crc.update(content);
        writeLe32(out, crc.getValue());
        writeLe32(out, content.length);
        return out.toByteArray();
    }

    private static void writeLe32(ByteArrayOutputStream out, long v) {
        for (int i = 0; i < 4; i++) {
            out.write((int) (v >> (8 * i)) & 0xFF);
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** What the deflate data from {@code start} inflates to, one byte at a time, up to its end or corrupt data. */
    private static byte[] inflateByteByByte(byte[] file, int start) {
        Inflater inflater = new Inflater(true);
        inflater.setInput(file, start, file.length - start);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] one = new byte[1];
        try {
            while (!inflater.finished() && inflater.inflate(one) == 1) {
                out.write(one[0]);
            }
        } catch (DataFormatException e) {
            // where the good bytes end
        } finally {
            inflater.end();
        }
        return out.toByteArray();
    }

    /** Kineto-like JSON with enough variety that deflate uses dynamic Huffman codes and back-references. */
    private static byte[] text() {
        Random random = new Random(11);
        StringBuilder sb = new StringBuilder("{\"traceEvents\": [\n");
        for (int i = 0; i < 400; i++) {
            sb.append("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k").append(random.nextInt(50))
                    .append("\", \"ts\": ").append(1000 + 7 * i).append('.').append(random.nextInt(1000))
                    .append(", \"dur\": ").append(random.nextInt(100)).append("},\n");
        }
        return sb.append("{}]}\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    // ---- reading ----

    private record Damage(byte[] content, InputDamage damage) {}

    private byte[] readAll(byte[] file) throws IOException {
        Damage d = read(file);
        if (d.damage != null) {
            fail("damage in an intact file: " + d.damage.getMessage());
        }
        return d.content;
    }

    /** Reads the whole content in small reads, as the parser does; the damage that ended it, if any. */
    private Damage read(byte[] file) throws IOException {
        Path f = Files.createTempFile(tmp, "gz", ".gz");
        Files.write(f, file);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[333];
        try (InputStream in = TraceInput.gunzip(f)) {
            int n;
            while ((n = in.read(buf, 0, buf.length)) >= 0) {
                out.write(buf, 0, n);
            }
        } catch (InputDamage e) {
            return new Damage(out.toByteArray(), e);
        }
        return new Damage(out.toByteArray(), null);
    }
}
