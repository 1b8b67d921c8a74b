package dev.steptrace.cli;

import dev.steptrace.common.Messages;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;

/**
 * What the commands print, with every character that would act on a terminal (an ANSI escape in a
 * kernel name or a path, a carriage return, a bidirectional override) written out as text instead
 * ({@link Messages#printable}). Names come from traces, which anyone may have written.
 */
final class TerminalSafeWriter extends FilterWriter {
    TerminalSafeWriter(Writer out) {
        super(out);
    }

    @Override
    public void write(int c) throws IOException {
        if (Messages.acts((char) c)) {
            out.write(Messages.shown((char) c));
        } else {
            out.write(c);
        }
    }

    @Override
    public void write(char[] buf, int off, int len) throws IOException {
        int start = off;
        for (int i = off; i < off + len; i++) {
            if (Messages.acts(buf[i])) {
                out.write(buf, start, i - start);
                out.write(Messages.shown(buf[i]));
                start = i + 1;
            }
        }
        out.write(buf, start, off + len - start);
    }

    @Override
    public void write(String s, int off, int len) throws IOException {
        write(s.toCharArray(), off, len);
    }
}
