package dev.steptrace.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * Identity of a file's content: size plus two CRCs (64 bits together) of its bytes as stored.
 * Both CRCs are CPU intrinsics running at several GB/s, so re-ingest of an unchanged multi-GB capture
 * costs at most one read of the (usually gzipped) files and no parsing; none where the files are, by their
 * {@link FileIdentity}, those the stored content was read from.
 */
public record Fingerprint(long size, String contentHash) {
    /** A found trace's fingerprint, over the parts its importer names. */
    public static Fingerprint of(TraceDiscovery.Found trace) throws IOException {
        return of(trace.path(), trace.importer().parts(trace.path()));
    }

    /**
     * A trace's fingerprint: a file's bytes; for a trace of several files ({@link Importer#parts}: an
     * nsys Parquet export's tables, a rocprofv3 kernel trace with the traces beside it), their names
     * and bytes in the order given, with their total size.
     */
    public static Fingerprint of(Path trace, List<Path> parts) throws IOException {
        CRC32C crc32c = new CRC32C();
        CRC32 crc32 = new CRC32();
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        long size = 0;
        if (!parts.equals(List.of(trace))) {
            for (Path p : parts) {
                byte[] name = p.getFileName().toString().getBytes(StandardCharsets.UTF_8);
                crc32c.update(name);
                crc32.update(name);
                size += update(p, buf, crc32c, crc32);
            }
        } else {
            size = update(trace, buf, crc32c, crc32);
        }
        return new Fingerprint(size, hash(crc32c, crc32));
    }

    private static String hash(CRC32C crc32c, CRC32 crc32) {
        return String.format("crc32c:%08x-crc32:%08x", crc32c.getValue(), crc32.getValue());
    }

    /**
     * What a gzip member's trailer says of the content it holds (RFC 1952): its CRC-32 and its length
     * modulo 2^32. A plain file and a gzip file of one member (as torch.profiler writes them) with the same
     * content have the same, so a gunzipped copy left beside its {@code .gz} is suspected without inflating
     * it. Only suspected: the trailer of a file of several members is its last member's, and that of a
     * damaged file says what its content should have been ({@link #ofGunzipped} tells).
     */
    public record Content(long crc32, long lengthMod32) {}

    /** This fingerprint's bytes as {@link Content}: compared with gzip files' {@link #gzipContent}. Null without a hash. */
    public Content content() {
        if (contentHash == null) {
            return null;
        }
        return new Content(Long.parseLong(contentHash.substring(contentHash.indexOf("-crc32:") + 7), 16),
                size & 0xFFFFFFFFL);
    }

    /**
     * The fingerprint of a gzip file's content (every member inflated and checked), as a plain file of that
     * content would have it; null when the file is damaged.
     */
    public static Fingerprint ofGunzipped(Path gzip) throws IOException {
        Digest digest = new Digest();
        byte[] buf = new byte[1 << 16];
        try (InputStream in = TraceInput.gunzip(gzip)) {
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                digest.update(buf, 0, n);
            }
        } catch (InputDamage e) {
            return null;
        }
        digest.end();
        return digest.fingerprint();
    }

    /**
     * The content of a gzip file's last member, from its trailer: the whole file's content when it has one
     * member. Null when the file is too short to be gzip.
     */
    public static Content gzipContent(Path gzip) throws IOException {
        ByteBuffer trailer = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(gzip, StandardOpenOption.READ)) {
            // A member is at least a 10-byte header, an empty deflate block and the 8-byte trailer.
            if (ch.size() < 20) {
                return null;
            }
            long at = ch.size() - 8;
            while (trailer.hasRemaining()) {
                if (ch.read(trailer, at + trailer.position()) < 0) {
                    return null;
                }
            }
        }
        return new Content(trailer.getInt(0) & 0xFFFFFFFFL, trailer.getInt(4) & 0xFFFFFFFFL);
    }

    /**
     * A file's fingerprint taken from its bytes as they are read for parsing, so a new or changed file
     * is read once: every byte in order, once, then the end of the file ({@link #end()}).
     */
    public static final class Digest {
        private final CRC32C crc32c = new CRC32C();
        private final CRC32 crc32 = new CRC32();
        private long size;
        /** Set after the last update, by the thread that read the file: readable from any thread. */
        private volatile boolean ended;

        void update(byte[] b, int off, int len) {
            crc32c.update(b, off, len);
            crc32.update(b, off, len);
            size += len;
        }

        void end() {
            ended = true;
        }

        /** The fingerprint, or null when the file was not read to its end (the reader stopped early). */
        public Fingerprint fingerprint() {
            return ended ? new Fingerprint(size, hash(crc32c, crc32)) : null;
        }
    }

    private static long update(Path file, ByteBuffer buf, CRC32C crc32c, CRC32 crc32) throws IOException {
        long size = 0;
        buf.clear();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (ch.read(buf) >= 0) {
                buf.flip();
                size += buf.remaining();
                crc32c.update(buf.duplicate());
                crc32.update(buf);
                buf.clear();
            }
        }
        return size;
    }
}
