package dev.steptrace.ingest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/** Opens a trace file as its decompressed bytes, counting the file bytes read for progress. */
public final class TraceInput {
    /** The names of the threads that read a plain file, or decompress a gzip one, ahead (then the file's name). */
    public static final String READ_THREAD = "steptrace-read";
    public static final String GUNZIP_THREAD = "steptrace-gunzip";

    private TraceInput() {}

    /**
     * Where to stop reading a file on purpose, and why: the bytes from decompressed offset {@code at} on
     * are not handed out, an {@link InputDamage} with {@code reason} is thrown there instead.
     */
    public record Stop(long at, String reason) {}

    /**
     * @param readAhead     bytes to queue read (and decompressed) ahead on a second thread ({@link ReadAhead}; pays
     *                      when cores would otherwise idle); 0 to read on the caller's
     * @param fileBytesRead counts the file's bytes as they are read
     * @param jsonBytesRead counts the bytes handed out (decompressed), or null
     * @param digest        takes the file's fingerprint from the bytes read, or null
     * @param stop          where to stop, or null to read it all
     */
    public static InputStream open(Path file, boolean gzip, int readAhead, AtomicLong fileBytesRead,
                                   AtomicLong jsonBytesRead, Fingerprint.Digest digest, Stop stop) throws IOException {
        // The reader's RecordingInput reads in large chunks itself: another buffer would be one more copy.
        InputStream in = new Counting(Files.newInputStream(file), fileBytesRead, digest);
        if (gzip) {
            in = new GzipInput(file, in);
        }
        if (readAhead > 0) {
            in = new ReadAhead(in, (gzip ? GUNZIP_THREAD : READ_THREAD) + " " + file.getFileName(), readAhead);
        }
        if (jsonBytesRead != null) {
            in = new Counting(in, jsonBytesRead, null);
        }
        return stop == null ? in : new Stopping(in, stop);
    }

    /** The decompressed bytes of a gzip file, checked member by member (see {@link GzipInput}). */
    public static InputStream gunzip(Path file) throws IOException {
        return new GzipInput(file, Files.newInputStream(file));
    }

    /** A filter whose single-byte read goes through its array read, so that each counts every byte it hands out. */
    private abstract static class ByteReads extends FilterInputStream {
        ByteReads(InputStream in) {
            super(in);
        }

        @Override
        public final int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }
    }

    /** Counts the bytes read through it and, with a digest, fingerprints them. */
    private static final class Counting extends ByteReads {
        private final AtomicLong counter;
        private final Fingerprint.Digest digest;

        Counting(InputStream in, AtomicLong counter, Fingerprint.Digest digest) {
            super(in);
            this.counter = counter;
            this.digest = digest;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                counter.addAndGet(n);
                if (digest != null) {
                    digest.update(b, off, n);
                }
            } else if (n < 0 && digest != null) {
                digest.end();
            }
            return n;
        }
    }

    /** Hands out the bytes before {@link Stop#at()}, then throws. */
    private static final class Stopping extends ByteReads {
        private final Stop stop;
        private long position;

        Stopping(InputStream in, Stop stop) {
            super(in);
            this.stop = stop;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (position >= stop.at()) {
                throw InputDamage.endsEarly(stop.reason());
            }
            int n = super.read(b, off, (int) Math.min(len, stop.at() - position));
            if (n > 0) {
                position += n;
            }
            return n;
        }
    }
}
