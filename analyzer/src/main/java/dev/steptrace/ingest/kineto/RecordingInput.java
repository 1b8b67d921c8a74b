package dev.steptrace.ingest.kineto;

import java.io.IOException;
import java.io.InputStream;

/**
 * The decompressed JSON bytes of one file, with the bytes of the event being parsed kept so the
 * reader can go back over them after a parse error (to repair an unescaped quote, or to find the
 * next event). Everything before {@link #keepFrom(long)} may be dropped, so memory stays at about one
 * event plus the parser's read-ahead.
 */
final class RecordingInput extends InputStream {
    /** Beyond this an event is not kept for repair; recovery then falls back to skipping it. */
    private static final int MAX_KEPT = 64 << 20;

    private final InputStream in;
    private byte[] buf = new byte[1 << 17];
    private long bufStart;
    private int bufLen;
    private long cursor;
    private long keepFrom;
    private boolean eof;
    /**
     * The underlying stream's failure, thrown again by every later fill: a reader that has read ahead
     * ({@link ParallelScan}) meets it where a reader that had not would.
     */
    private DamagedInputException damaged;
    /** A read since the last seek returned the end of input: the parser ran out of bytes. */
    private boolean endReturned;

    RecordingInput(InputStream in) {
        this.in = in;
    }

    /** Input that is only ever given bytes by {@link #over}: a chunk of the file at a time. */
    RecordingInput() {
        this(InputStream.nullInputStream());
    }

    /** Makes {@code bytes[0, length)}, at absolute offset {@code start}, the whole input (nothing is copied). */
    void over(byte[] bytes, int length, long start) {
        buf = bytes;
        bufLen = length;
        bufStart = start;
        cursor = start;
        keepFrom = start;
        eof = true;
        endReturned = false;
    }

    /** Absolute offset of the next byte {@link #read} returns. */
    long position() {
        return cursor;
    }

    /** Absolute offset one past the last byte read from the underlying stream. */
    long bytesRead() {
        return bufStart + bufLen;
    }

    /** Offset of the oldest byte still kept. */
    long keptFrom() {
        return bufStart;
    }

    /** Bytes before {@code offset} will not be needed again. */
    void keepFrom(long offset) {
        if (offset > keepFrom) {
            keepFrom = offset;
        }
    }

    /** The buffer the kept bytes are in, for {@link EventScanner}: valid until the next read or fill. */
    byte[] buffer() {
        return buf;
    }

    /** Absolute offset of {@code buffer()[0]}. */
    long bufferStart() {
        return bufStart;
    }

    /** Bytes of {@link #buffer()} that hold input. */
    int bufferLength() {
        return bufLen;
    }

    /**
     * For {@link EventScanner}: reads more input into the buffer, keeping the bytes from {@code mark}
     * on (which moves them, so offsets stay valid and buffer indexes do not). False at the end.
     */
    boolean fillFrom(long mark) throws DamagedInputException {
        keepFrom(mark);
        seek(mark);
        return fill();
    }

    /** Moves back to an absolute offset that is still kept (at most {@link #bytesRead()}). */
    void seek(long offset) {
        if (offset < bufStart || offset > bufStart + bufLen) {
            throw new IllegalStateException("offset " + offset + " is outside the kept bytes ["
                    + bufStart + ", " + (bufStart + bufLen) + ")");
        }
        cursor = offset;
        endReturned = false;
    }

    /**
     * For {@link ParallelScan}: the bytes from the cursor on, the buffered ones first, then straight from
     * the stream, not kept here (no copy into the buffer): the caller keeps them, and gives back with
     * {@link #giveBack} those still to be read before this input is read, sought or asked anything else.
     * -1 at the end of the stream.
     */
    int readPast(byte[] b, int off, int len) throws DamagedInputException {
        long buffered = bufStart + bufLen - cursor;
        if (buffered > 0) {
            int n = (int) Math.min(len, buffered);
            System.arraycopy(buf, (int) (cursor - bufStart), b, off, n);
            cursor += n;
            return n;
        }
        int n = readStream(b, off, len, cursor);
        if (n > 0) {
            cursor += n;
        }
        return n;
    }

    /**
     * After {@link #readPast}: {@code bytes[0, length)} are the bytes read from absolute offset {@code offset}
     * up to the cursor; they are kept again, before any bytes still buffered past the cursor, and the
     * cursor is at {@code offset}.
     */
    void giveBack(long offset, byte[] bytes, int length) {
        if (offset + length != cursor) {
            throw new IllegalStateException("bytes given back end at " + (offset + length) + ", not at " + cursor);
        }
        int buffered = (int) Math.max(0, bufStart + bufLen - cursor);
        byte[] kept = new byte[Math.max(length + buffered, 1 << 17)];
        System.arraycopy(bytes, 0, kept, 0, length);
        if (buffered > 0) {
            System.arraycopy(buf, (int) (cursor - bufStart), kept, length, buffered);
        }
        buf = kept;
        bufStart = offset;
        bufLen = length + buffered;
        keepFrom = offset;
        cursor = offset;
        endReturned = false;
    }

    /** True when a read since the last {@link #seek} found no more input. */
    boolean endReturned() {
        return endReturned;
    }

    @Override
    public int read() throws IOException {
        if (cursor >= bufStart + bufLen && !fill()) {
            endReturned = true;
            return -1;
        }
        return buf[(int) (cursor++ - bufStart)] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (cursor >= bufStart + bufLen && !fill()) {
            endReturned = true;
            return -1;
        }
        int available = (int) (bufStart + bufLen - cursor);
        int n = Math.min(len, available);
        System.arraycopy(buf, (int) (cursor - bufStart), b, off, n);
        cursor += n;
        return n;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** Reads more from the underlying stream; false at its end. */
    private boolean fill() throws DamagedInputException {
        if (damaged == null && !eof) {
            makeRoom();
        }
        int n = readStream(buf, bufLen, buf.length - bufLen, bufStart + bufLen);
        if (n < 0) {
            return false;
        }
        bufLen += n;
        return true;
    }

    /**
     * Reads from the underlying stream: -1 at its end, and after it. Its failure, at absolute offset {@code at},
     * is thrown now and by every later read.
     */
    private int readStream(byte[] b, int off, int len, long at) throws DamagedInputException {
        if (damaged != null) {
            throw damaged;
        }
        if (eof) {
            return -1;
        }
        int n;
        try {
            n = in.read(b, off, len);
        } catch (IOException e) {
            damaged = new DamagedInputException(at, e);
            throw damaged;
        }
        if (n < 0) {
            eof = true;
        }
        return n;
    }

    private void makeRoom() {
        int free = buf.length - bufLen;
        if (free >= buf.length / 4) {
            return;
        }
        long dropTo = Math.min(keepFrom, cursor);
        int droppable = (int) Math.max(0, dropTo - bufStart);
        if (droppable >= buf.length / 2 || (droppable > 0 && buf.length >= MAX_KEPT)) {
            System.arraycopy(buf, droppable, buf, 0, bufLen - droppable);
            bufStart += droppable;
            bufLen -= droppable;
        } else if (buf.length < MAX_KEPT) {
            byte[] bigger = new byte[buf.length * 2];
            System.arraycopy(buf, 0, bigger, 0, bufLen);
            buf = bigger;
        } else {
            // An event larger than MAX_KEPT: stop keeping it, it can no longer be repaired. Every
            // buffered byte has been handed out when fill() runs, so this frees the whole buffer.
            keepFrom = cursor;
            int consumed = (int) (cursor - bufStart);
            System.arraycopy(buf, consumed, buf, 0, bufLen - consumed);
            bufStart += consumed;
            bufLen -= consumed;
        }
    }

    /** The underlying (usually gzip) stream failed: the file is truncated or corrupt at this point. */
    static final class DamagedInputException extends IOException {
        final long offset;

        DamagedInputException(long offset, IOException cause) {
            super(cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage(), cause);
            this.offset = offset;
        }
    }
}
