package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How far the read-ahead thread reads ahead; its end: closed early, and when its source fails in any way. */
class ReadAheadTest {
    /** A source whose reads take a while and that notes being closed under one (a gzip's inflater then throws). */
    private static final class SlowSource extends InputStream {
        final CountDownLatch reading = new CountDownLatch(1);
        volatile boolean inRead;
        volatile boolean closedUnderARead;
        volatile boolean closed;

        @Override
        public int read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            inRead = true;
            reading.countDown();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // an inflater's work is not interrupted either
            } finally {
                inRead = false;
            }
            b[off] = 'x';
            return 1;
        }

        @Override
        public void close() {
            closedUnderARead |= inRead;
            closed = true;
        }
    }

    @Test
    void closedEarlyItWaitsForTheReadUnderWayBeforeClosingTheSource() throws Exception {
        SlowSource source = new SlowSource();
        ReadAhead ahead = new ReadAhead(source, "test-read-ahead", ReadAhead.MIN_BYTES);
        assertTrue(source.reading.await(10, TimeUnit.SECONDS));
        assertTimeoutPreemptively(Duration.ofSeconds(10), ahead::close);
        assertTrue(source.closed);
        assertFalse(source.closedUnderARead);
    }

    /** Anything the source throws reaches the reader after the bytes before it; the reader never waits forever. */
    @Test
    void whatTheSourceThrowsReachesTheReader() {
        InputStream failing = new InputStream() {
            private int left = 3;

            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left == 0) {
                    throw new IllegalStateException("Inflater has been closed");
                }
                left--;
                b[off] = 'a';
                return 1;
            }
        };
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            try (ReadAhead ahead = new ReadAhead(failing, "test-read-ahead", ReadAhead.MIN_BYTES)) {
                byte[] got = new byte[3];
                int n = 0;
                while (n < 3) {
                    n += ahead.read(got, n, 3 - n);
                }
                assertArrayEquals("aaa".getBytes(), got);
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> ahead.read(new byte[1], 0, 1));
                assertEquals("Inflater has been closed", e.getMessage());
            }
        });
    }

    /**
     * With nothing read from it, a read-ahead of {@code bytes} reads its source until its queue of that many bytes
     * is full (at least two chunks), and then at most the chunk it is waiting to queue; every byte is handed on in
     * order.
     */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, ReadAhead.MIN_BYTES, ReadAhead.MAX_BYTES})
    void itReadsAheadAsManyBytesAsItIsGivenAndHandsThemOnInOrder(int bytes) throws Exception {
        long queued = Math.max(2, bytes / ReadAhead.CHUNK) * (long) ReadAhead.CHUNK;
        AtomicLong read = new AtomicLong();
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                long at = read.getAndAdd(len);
                for (int k = 0; k < len; k++) {
                    b[off + k] = (byte) ((at + k) % 251);
                }
                return len;
            }
        };
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (ReadAhead ahead = new ReadAhead(endless, "test-read-ahead", bytes)) {
                while (read.get() < queued) {
                    Thread.sleep(5);
                }
                Thread.sleep(200);
                assertTrue(read.get() <= queued + ReadAhead.CHUNK, () -> read.get() + " bytes read ahead");
                byte[] got = new byte[7919];
                for (long at = 0; at < queued + 3L * ReadAhead.CHUNK; ) {
                    int n = ahead.read(got, 0, got.length);
                    for (int k = 0; k < n; k++) {
                        assertEquals((byte) ((at + k) % 251), got[k]);
                    }
                    at += n;
                }
            }
        });
    }
}
