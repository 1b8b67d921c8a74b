package dev.steptrace.ingest;

import dev.steptrace.common.Futures;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Reads a stream on its own thread, up to a given number of bytes ahead of the parser: a gzip file's
 * inflated bytes, or a plain file's (the kernel's copy and the fingerprint's CRCs). Worth it when a core
 * would otherwise sit idle (fewer files than cores): gunzip is about a fifth of the cost of parsing,
 * reading a plain file a tenth, and this takes it off the parsing thread. docs/performance.md has the measurements.
 */
final class ReadAhead extends InputStream {
    static final int CHUNK = 1 << 18;
    /** The least and most bytes read ahead ({@link Ingestor#readAheadBytes} chooses). */
    static final int MIN_BYTES = 8 * CHUNK;
    static final int MAX_BYTES = 64 * CHUNK;
    private static final Chunk END = new Chunk(new byte[0], 0);

    private record Chunk(byte[] bytes, int length) {}

    private final InputStream source;
    private final BlockingQueue<Chunk> filled;
    private final BlockingQueue<byte[]> free;
    private final Thread thread;
    /** What ended the reading early: an IOException, or anything else the source threw (rethrown as it was). */
    private volatile Throwable failure;
    private Chunk current;
    private int pos;
    private boolean ended;

    /**
     * Reads {@code source} on a thread named {@code threadName}, queueing up to {@code bytes} (at least two chunks)
     * ahead of the reader; with the chunk being filled and the one being read, it holds two chunks more.
     */
    ReadAhead(InputStream source, String threadName, int bytes) {
        this.source = source;
        int chunks = Math.max(2, bytes / CHUNK);
        this.filled = new ArrayBlockingQueue<>(chunks);
        this.free = new ArrayBlockingQueue<>(chunks + 2);
        this.thread = new Thread(this::pump, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void pump() {
        try {
            while (true) {
                byte[] buf = free.poll();
                if (buf == null) {
                    buf = new byte[CHUNK];
                }
                int n = 0;
                int r = 0;
                try {
                    while (n < buf.length && (r = source.read(buf, n, buf.length - n)) >= 0) {
                        n += r;
                    }
                } catch (IOException | RuntimeException | Error e) {
                    // A cut or corrupt gzip (or anything else the source threw): hand over what was read
                    // before it, then the error.
                    failure = e;
                }
                if (n > 0) {
                    filled.put(new Chunk(buf, n));
                }
                if (r < 0 || failure != null) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            return;
        } catch (RuntimeException | Error e) {
            // No heap for a buffer, say: the reader gets it too, and does not wait for an end that never comes.
            failure = e;
        }
        try {
            filled.put(END);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean next() throws IOException {
        if (ended) {
            return false;
        }
        if (current != null) {
            free.offer(current.bytes());
        }
        try {
            current = filled.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading ahead");
        }
        pos = 0;
        if (current == END) {
            ended = true;
            if (failure != null) {
                throw Futures.asThrown(failure);
            }
            return false;
        }
        return true;
    }

    @Override
    public int read() throws IOException {
        if ((current == null || pos == current.length()) && !next()) {
            return -1;
        }
        return current.bytes()[pos++] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if ((current == null || pos == current.length()) && !next()) {
            return -1;
        }
        int n = Math.min(len, current.length() - pos);
        System.arraycopy(current.bytes(), pos, b, off, n);
        pos += n;
        return n;
    }

    /**
     * Stops the thread and waits for it before closing the source: closed under a read, a gzip source's
     * inflater would throw on that thread.
     */
    @Override
    public void close() throws IOException {
        thread.interrupt();
        Futures.join(thread);
        source.close();
    }
}
