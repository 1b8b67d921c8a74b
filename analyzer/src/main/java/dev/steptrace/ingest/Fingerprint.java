package dev.steptrace.ingest;

import java.io.IOException;
import java.nio.ByteBuffer;
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
 * costs one read of the (usually gzipped) files and no parsing.
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
