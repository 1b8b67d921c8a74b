package dev.steptrace.synth.kineto;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * Gzips buffers on a thread of its own, so that generating JSON and deflating it overlap: deflate at
 * {@link Deflater#BEST_SPEED} is the slowest stage, and the generator would otherwise wait for it.
 * A small pool of buffers circulates between the two threads, which bounds memory to a few chunks
 * whatever the file size. Java's gzip header has no timestamp, so equal input gives equal files.
 */
final class GzipDrain implements JsonSink.Drain {
    private static final int BUFFERS = 4;
    private static final Chunk END = new Chunk(new byte[0], 0);

    private record Chunk(byte[] bytes, int length) {
    }

    private final BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(BUFFERS);
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(BUFFERS);
    private final Thread worker;
    private final Path file;
    private volatile Throwable failure;

    GzipDrain(Path file) throws IOException {
        this.file = file;
        for (int i = 0; i < BUFFERS - 1; i++) {
            free.add(new byte[JsonSink.CHUNK]);
        }
        GZIPOutputStream gz = new GZIPOutputStream(new BufferedOutputStream(new FileOutputStream(file.toFile()), 1 << 18), 1 << 16) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        };
        worker = new Thread(() -> compress(gz), "synth-gzip-" + file.getFileName());
        worker.setDaemon(true);
        worker.start();
    }

    /** The first buffer to fill (the caller's sink starts with it). */
    byte[] firstBuffer() {
        return new byte[JsonSink.CHUNK];
    }

    /** Runs until the end marker; after a failure it keeps recycling buffers so the producer never blocks. */
    private void compress(GZIPOutputStream gz) {
        try (gz) {
            while (true) {
                Chunk c = full.take();
                if (c == END) {
                    break;
                }
                if (failure == null) {
                    try {
                        gz.write(c.bytes, 0, c.length);
                    } catch (IOException e) {
                        failure = e;
                    }
                }
                free.put(c.bytes);
            }
        } catch (Throwable t) {
            if (failure == null) {
                failure = t;
            }
        }
    }

    @Override
    public byte[] drain(byte[] chunk, int length) throws IOException {
        check();
        try {
            Chunk c = new Chunk(chunk, length);
            while (!full.offer(c, 100, TimeUnit.MILLISECONDS)) {
                requireWorker();
            }
            byte[] next;
            while ((next = free.poll(100, TimeUnit.MILLISECONDS)) == null) {
                requireWorker();
            }
            return next;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while compressing " + file);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            full.put(END);
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while compressing " + file);
        }
        check();
    }

    private void requireWorker() throws IOException {
        if (!worker.isAlive()) {
            check();
            throw new IOException("the compression thread for " + file + " stopped");
        }
    }

    private void check() throws IOException {
        Throwable t = failure;
        if (t instanceof IOException io) {
            throw io;
        }
        if (t != null) {
            throw new IOException("compressing " + file + " failed: " + t, t);
        }
    }
}
