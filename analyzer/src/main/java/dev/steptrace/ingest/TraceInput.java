package dev.steptrace.ingest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;

/** Opens a trace file as its decompressed bytes, counting the file bytes read for progress. */
public final class TraceInput {
    private static final int BUFFER = 1 << 16;

    private TraceInput() {}

    /**
     * @param inflateAhead decompress on a second thread (pays when cores would otherwise idle)
     */
    public static InputStream open(Path file, boolean gzip, boolean inflateAhead, AtomicLong fileBytesRead)
            throws IOException {
        InputStream raw = new Counting(Files.newInputStream(file), fileBytesRead);
        if (!gzip) {
            // The reader's RecordingInput reads in large chunks itself: another buffer would be one more copy.
            return raw;
        }
        InputStream gunzip = new GZIPInputStream(raw, BUFFER);
        return inflateAhead ? new BackgroundInflater(gunzip, file.getFileName().toString()) : gunzip;
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
}
