package dev.steptrace.synth.kineto;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * An append-only byte buffer for generated JSON, with the few number formats Kineto uses written
 * straight into the buffer. Constant text is appended as pre-encoded byte arrays, so an event costs a
 * handful of array copies and digit loops: generation must outrun gzip, and files reach gigabytes.
 * Full buffers go to a {@link Drain}, which may hand back a different buffer (the gzip drain
 * compresses the old one on another thread).
 */
final class JsonSink implements Closeable {
    /** Where full buffers go. */
    interface Drain extends Closeable {
        /** Consumes {@code length} bytes of {@code chunk} and returns the buffer to fill next. */
        byte[] drain(byte[] chunk, int length) throws IOException;
    }

    static final int CHUNK = 1 << 20;
    /** Room every number write may assume without checking. */
    private static final int NUMBER_ROOM = 24;
    private static final int[] POWERS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000};
    /** "00" to "99". */
    private static final byte[] PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            PAIRS[2 * i] = (byte) ('0' + i / 10);
            PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    private final Drain drain;
    private byte[] buf;
    private int pos;
    private long drained;

    JsonSink(Drain drain, byte[] first) {
        this.drain = drain;
        this.buf = first;
    }

    /** Bytes written so far. */
    long written() {
        return drained + pos;
    }

    void raw(byte[] bytes) throws IOException {
        if (pos + bytes.length > buf.length) {
            spill(bytes.length);
        }
        System.arraycopy(bytes, 0, buf, pos, bytes.length);
        pos += bytes.length;
    }

    /** Text known to be ASCII and free of characters JSON must escape. */
    void ascii(String s) throws IOException {
        int len = s.length();
        if (pos + len > buf.length) {
            spill(len);
        }
        for (int i = 0; i < len; i++) {
            buf[pos + i] = (byte) s.charAt(i);
        }
        pos += len;
    }

    void num(long v) throws IOException {
        room();
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                ascii(Long.toString(v));
                return;
            }
            buf[pos++] = '-';
            v = -v;
        }
        digits(v, 1);
    }

    /** An unsigned 64-bit value (comms ids above 2^63). */
    void unsigned(long v) throws IOException {
        if (v >= 0) {
            num(v);
        } else {
            ascii(Long.toUnsignedString(v));
        }
    }

    /** Kineto's {@code fmtTs}: nanoseconds as microseconds with three decimals, {@code 5150157429668.213}. */
    void micros(long ns) throws IOException {
        if (ns < 0) {
            throw new IllegalArgumentException("negative time " + ns);
        }
        room();
        digits(ns / 1000, 1);
        buf[pos++] = '.';
        digits(ns % 1000, 3);
    }

    /** Decimal digits of {@code v >= 0}, zero-padded to {@code minDigits}; int arithmetic, two digits a step. */
    private void digits(long v, int minDigits) {
        if (v < 100_000_000L) {
            intDigits((int) v, minDigits);
        } else {
            long high = v / 100_000_000L;
            digits(high, Math.max(1, minDigits - 8));
            intDigits((int) (v - high * 100_000_000L), 8);
        }
    }

    private void intDigits(int v, int minDigits) {
        int len = 1;
        while (len < 10 && v >= POWERS[len]) {
            len++;
        }
        len = Math.max(len, minDigits);
        int i = pos + len;
        while (v >= 100) {
            int q = v / 100;
            int r = (v - q * 100) << 1;
            buf[--i] = PAIRS[r + 1];
            buf[--i] = PAIRS[r];
            v = q;
        }
        if (v >= 10) {
            buf[--i] = PAIRS[(v << 1) + 1];
            buf[--i] = PAIRS[v << 1];
        } else {
            buf[--i] = (byte) ('0' + v);
        }
        while (i > pos) {
            buf[--i] = '0';
        }
        pos += len;
    }

    private void room() throws IOException {
        if (pos + NUMBER_ROOM > buf.length) {
            spill(NUMBER_ROOM);
        }
    }

    private void spill(int needed) throws IOException {
        flushBuffer();
        if (needed > buf.length) {
            buf = new byte[needed];
        }
    }

    private void flushBuffer() throws IOException {
        if (pos > 0) {
            drained += pos;
            buf = drain.drain(buf, pos);
            pos = 0;
        }
    }

    /** Flushes what is buffered and closes the drain. */
    @Override
    public void close() throws IOException {
        try {
            flushBuffer();
        } finally {
            drain.close();
        }
    }

    /** UTF-8 bytes of {@code s} escaped for a JSON string. */
    static byte[] escape(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            String rep = ch == '"' ? "\\\"" : ch == '\\' ? "\\\\" : ch < 0x20 ? String.format("\\u%04x", (int) ch) : null;
            if (rep != null) {
                if (b == null) {
                    b = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                b.append(rep);
            } else if (b != null) {
                b.append(ch);
            }
        }
        return (b == null ? s : b.toString()).getBytes(StandardCharsets.UTF_8);
    }
}
