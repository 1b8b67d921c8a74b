package dev.steptrace.ingest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/** Opens a trace file as its decompressed bytes, counting the file bytes read for progress. */
public final class TraceInput {
    private TraceInput() {}

    /**
     * Where to stop reading a file on purpose, and why: the bytes from decompressed offset {@code at} on
     * are not handed out, an {@link InputDamage} with {@code reason} is thrown there instead.
     */
    public record Stop(long at, String reason) {}

    /**
     * @param inflateAhead decompress on a second thread (pays when cores would otherwise idle)
     * @param stop         where to stop, or null to read it all
     */
    public static InputStream open(Path file, boolean gzip, boolean inflateAhead, AtomicLong fileBytesRead,
                                   Stop stop) throws IOException {
        // The reader's RecordingInput reads in large chunks itself: another buffer would be one more copy.
        InputStream in = new Counting(Files.newInputStream(file), fileBytesRead);
        if (gzip) {
            in = new GzipInput(file, in);
            if (inflateAhead) {
                in = new BackgroundInflater(in, file.getFileName().toString());
            }
        }
        return stop == null ? in : new Stopping(in, stop);
    }

    /** The decompressed bytes of a gzip file, checked member by member (see {@link GzipInput}). */
    public static InputStream gunzip(Path file) throws IOException {
        return new GzipInput(file, Files.newInputStream(file));
    }

    private static final class Counting extends FilterInputStream {
        private final AtomicLong counter;

        Counting(InputStream in, AtomicLong counter) {
            super(in);
            this.counter = counter;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                counter.incrementAndGet();
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                counter.addAndGet(n);
            }
            return n;
        }
    }

    /** Hands out the bytes before {@link Stop#at()}, then throws. */
    private static final class Stopping extends FilterInputStream {
        private final Stop stop;
        private long position;

        Stopping(InputStream in, Stop stop) {
            super(in);
            this.stop = stop;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
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
