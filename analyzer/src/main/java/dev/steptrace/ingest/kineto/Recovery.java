package dev.steptrace.ingest.kineto;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Byte-level fixes the reader falls back on after a parse error inside the event list. Both work
 * on the kept bytes of {@link RecordingInput} and are only ever run on damaged regions.
 */
final class Recovery {
    private static final int MAX_EVENT_BYTES = 16 << 20;
    private static final int MAX_NESTING = 256;
    /** Longest key looked for after a comma; Kineto's are a few dozen characters. */
    private static final int MAX_KEY = 256;

    private Recovery() {}

    /** An event re-encoded with its stray quotes escaped, and the offset just past its closing brace. */
    record Repaired(byte[] json, long endOffset) {}

    /**
     * Re-reads the object starting at {@code start}, escaping every quote inside a string that cannot
     * end it where it stands: a key ends at a quote followed by {@code :}; an array element at one
     * followed by {@code ,} or {@code ]}; a value in an object at one followed by {@code }} or by
     * {@code ,} and the next key ({@code "...":}). Kineto wrote names such as {@code void k<"x">()} or
     * {@code f("a", "b")} unescaped until 2026-07. Null when no end of the object is found, or when the
     * repair would have to escape a quote in a key or one followed by a colon.
     */
    static Repaired repairQuotes(RecordingInput in, long start) throws IOException {
        if (start < in.keptFrom()) {
            return null;
        }
        in.seek(start);
        Lookahead src = new Lookahead(in);
        if (src.at(0) != '{') {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        byte[] open = new byte[MAX_NESTING];
        int depth = 0;
        boolean inString = false;
        boolean key = false;
        int lastOutside = -1;
        for (int i = 0; i < MAX_EVENT_BYTES; i++) {
            int c = src.at(i);
            if (c < 0) {
                return null;
            }
            if (inString) {
                if (c == '\\') {
                    out.write(c);
                    int next = src.at(++i);
                    if (next < 0) {
                        return null;
                    }
                    out.write(next);
                    continue;
                }
                if (c == '"') {
                    if (endsString(src, i + 1, key, open[depth - 1] == '[')) {
                        inString = false;
                    } else if (key || beforeColon(src, i + 1)) {
                        // A quote in a key, or one that ends a key ("...":): escaping it would turn keys
                        // into text and lose the fields they hold. No Kineto name does that: not repairable.
                        return null;
                    } else {
                        out.write('\\');
                    }
                }
                out.write(c);
                continue;
            }
            out.write(c);
            if (c == '"') {
                inString = true;
                key = open[depth - 1] == '{' && (lastOutside == '{' || lastOutside == ',');
            } else if (c == '{' || c == '[') {
                if (depth == MAX_NESTING) {
                    return null;
                }
                open[depth++] = (byte) c;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    return new Repaired(out.toByteArray(), start + i + 1);
                }
            }
            if (!isSpace(c)) {
                lastOutside = c;
            }
        }
        return null;
    }

    /** Whether the quote just before {@code j} can end the current string (see {@link #repairQuotes}). */
    private static boolean endsString(Lookahead src, int j, boolean key, boolean inArray) throws IOException {
        while (isSpace(src.at(j))) {
            j++;
        }
        int after = src.at(j);
        if (after < 0) {
            return true;
        }
        if (key) {
            return after == ':';
        }
        if (inArray) {
            return after == ',' || after == ']';
        }
        if (after == '}') {
            return true;
        }
        if (after != ',') {
            return false;
        }
        // The next member's key: "...": (or the end of the object, after a trailing comma).
        j++;
        while (isSpace(src.at(j))) {
            j++;
        }
        if (src.at(j) == '}') {
            return true;
        }
        if (src.at(j) != '"') {
            return false;
        }
        for (int k = j + 1, end = j + 1 + MAX_KEY; k < end; k++) {
            int c = src.at(k);
            if (c < 0 || c == '\\') {
                return false;
            }
            if (c == '"') {
                k++;
                while (isSpace(src.at(k))) {
                    k++;
                }
                return src.at(k) == ':';
            }
        }
        return false;
    }

    /** Whether {@code j} (after white space) is a single colon, as after a key; {@code ::} is C++. */
    private static boolean beforeColon(Lookahead src, int j) throws IOException {
        while (isSpace(src.at(j))) {
            j++;
        }
        return src.at(j) == ':' && src.at(j + 1) != ':';
    }

    /** Offset of the next event after {@code end}: past the separating comma, if any. */
    static long afterSeparator(RecordingInput in, long end) throws IOException {
        in.seek(end);
        int c;
        do {
            c = in.read();
        } while (isSpace(c));
        if (c == ',' || c < 0) {
            return in.position();
        }
        return in.position() - 1;
    }

    /**
     * Scans forward from the current position to the next '{' that opens an event: one whose previous
     * non-space byte is ',' '[' or '}' (or that starts a line, as in Kineto's layout) and whose next
     * non-space byte opens a key. Returns its offset, or -1 at the end of the input.
     */
    static long nextEventStart(RecordingInput in) throws IOException {
        int last = -1;
        boolean lineStart = false;
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '{' && (last == ',' || last == '[' || last == '}' || lineStart)) {
                long candidate = in.position() - 1;
                in.keepFrom(candidate);
                int next;
                do {
                    next = in.read();
                } while (isSpace(next));
                if (next == '"') {
                    in.seek(candidate);
                    return candidate;
                }
                in.seek(candidate + 1);
                c = '{';
            } else {
                in.keepFrom(in.position());
            }
            if (c == '\n') {
                lineStart = true;
            } else if (!isSpace(c)) {
                lineStart = false;
                last = c;
            }
        }
        return -1;
    }

    private static boolean isSpace(int c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    /** Random access to the bytes from the current position on, reading more as indices grow. */
    private static final class Lookahead {
        private final RecordingInput in;
        private byte[] bytes = new byte[4096];
        private int len;
        private boolean eof;

        Lookahead(RecordingInput in) {
            this.in = in;
        }

        int at(int i) throws IOException {
            while (i >= len && !eof) {
                if (len == bytes.length) {
                    bytes = java.util.Arrays.copyOf(bytes, bytes.length * 2);
                }
                int n = in.read(bytes, len, bytes.length - len);
                if (n < 0) {
                    eof = true;
                } else {
                    len += n;
                }
            }
            return i < len ? bytes[i] & 0xFF : -1;
        }
    }
}
