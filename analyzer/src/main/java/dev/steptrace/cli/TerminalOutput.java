package dev.steptrace.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;

/**
 * The one place everything the command line prints goes through: for the length of a command, System.out
 * and System.err are streams that write every character that would act on a terminal as text
 * ({@link TerminalSafeWriter}), whatever prints (picocli's writers, the commands, the API's listeners, a
 * library). Names of files, captures and kernels come from traces and stores, which anyone may have
 * written; a CSV or JSON of them on stdout is a terminal's as soon as nobody redirects it. Only the
 * progress line, which redraws itself, writes to the terminal directly ({@link #progress}).
 */
final class TerminalOutput implements AutoCloseable {
    private static volatile PrintStream rawErr;

    private final PrintStream out;
    private final PrintStream err;

    private TerminalOutput(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Replaces System.out and System.err until {@link #close}. */
    static TerminalOutput install() {
        TerminalOutput t = new TerminalOutput(System.out, System.err);
        Charset cs = Charset.defaultCharset();
        rawErr = t.err;
        System.setOut(new PrintStream(new SafeStream(t.out, cs), true, cs));
        System.setErr(new PrintStream(new SafeStream(t.err, cs), true, cs));
        return t;
    }

    /** Where the progress line draws itself (its own carriage returns and erase sequences intact). */
    static PrintStream progress() {
        PrintStream raw = rawErr;
        return raw != null ? raw : System.err;
    }

    @Override
    public void close() {
        System.out.flush();
        System.err.flush();
        System.setOut(out);
        System.setErr(err);
        rawErr = null;
    }

    /**
     * Bytes in the platform's charset, decoded, made safe and encoded again. A character split between
     * two writes waits for its last bytes; bytes that are no character are written as U+FFFD.
     */
    static final class SafeStream extends OutputStream {
        private final CharsetDecoder decoder;
        private final ByteBuffer in = ByteBuffer.allocate(8192);
        private final CharBuffer chars = CharBuffer.allocate(8192);
        private final Writer target;

        SafeStream(OutputStream target, Charset cs) {
            this.decoder = cs.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE);
            this.target = new TerminalSafeWriter(new OutputStreamWriter(target, cs));
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = Math.min(len, in.remaining());
                in.put(b, off, n);
                off += n;
                len -= n;
                decode();
            }
        }

        private void decode() throws IOException {
            in.flip();
            CoderResult r;
            do {
                r = decoder.decode(in, chars, false);
                target.write(chars.array(), 0, chars.position());
                chars.clear();
            } while (r.isOverflow());
            in.compact();
        }

        @Override
        public synchronized void flush() throws IOException {
            target.flush();
        }

        @Override
        public synchronized void close() throws IOException {
            target.flush();
        }
    }
}
