package dev.steptrace.ingest.kineto;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the event list of a Kineto trace straight from the bytes of {@link RecordingInput}, below
 * Jackson: keys matched by their bytes, names looked up by their raw bytes ({@link ByteNames}),
 * numbers parsed from the bytes, values we do not keep skipped by a structural scan that still
 * checks them (strings, escapes, UTF-8, numbers, literals), so that whatever it accepts is JSON
 * that Jackson accepts, read into the same {@link TraceEvent} as {@link EventFields} would.
 *
 * <p>It stops, and Jackson reads the next value (then hands back), wherever it meets anything
 * else: damage of any kind (so damage is found, reported and recovered from exactly as before),
 * the end of the input, and the rare shapes it leaves to Jackson: keys with escapes or non-ASCII
 * bytes, control characters inside strings, {@code NaN}/{@code Infinity}, numbers of more than
 * {@value #MAX_NUMBER} characters, {@code ph}/{@code cat} that are not strings, {@code args} text
 * values that are arrays or objects, literals followed by a letter, a digit or any other byte from {@code 0}
 * (0x30) up but {@code ]} and {@code }} (Jackson fails on some of those, at the token), strings and keys of more
 * than {@link KinetoReader#MAX_STRING} bytes, nesting deeper than {@value #MAX_DEPTH}, non-object list
 * entries and events that run past {@value #MAX_EVENT} bytes of buffer. Strings with escapes or non-ASCII
 * bytes are decoded by Jackson.
 */
final class EventScanner {
    static final int MAX_EVENT = 8 << 20;
    private static final int MAX_DEPTH = 200;
    private static final int MAX_NUMBER = 64;
    /** Keys longer than this are read as any string. */
    private static final int MAX_FAST_KEY = 32;
    /** Integer digits that always fit in a long. */
    private static final int EXACT_DIGITS = 18;

    /** Control flow inside a scan, preallocated: thrown once per buffer fill, or to hand over to Jackson. */
    private static final class Stop extends RuntimeException {
        Stop() {
            super(null, null, false, false);
        }
    }

    private static final Stop MORE = new Stop();
    private static final Stop JACKSON = new Stop();
    /** What {@link #next} returns at the end of an object or array: no byte has this value. */
    private static final int CLOSED = Integer.MIN_VALUE;

    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
    /** Eight bytes of the window as one little-endian long: the first byte in the lowest bits. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private static final Keys EVENT_KEYS = new Keys("ph", "cat", "name", "pid", "tid", "ts", "dur", "args");
    private static final int PH = 0;
    private static final int CAT = 1;
    private static final int NAME = 2;
    private static final int PID = 3;
    private static final int TID = 4;
    private static final int TS = 5;
    private static final int DUR = 6;
    private static final int ARGS = 7;

    /** The {@code args} keys {@link EventFields#readArgs} reads, in the order of the constants below. */
    private static final Keys ARG_KEYS = new Keys("External id", "external id", "correlation", "device", "stream",
            "bytes", "cbid", "graph id", "graph node id", "grid", "block", "name", "labels", "sort_index",
            "Collective name", "dtype", "In msg nelems", "Out msg nelems", "Group size", "Process Group Name",
            "Process Group ID", "Process Group Description", "Process Group Ranks", "Rank", "Src Rank", "Dst Rank",
            "Seq", "Comms Id", "In split size", "Out split size", "Input Dims", "Input type", "Input Strides",
            "Concrete Inputs", "Is asynchronized op");

    /** The {@link TraceEvent} flag of each integer arg among {@link #ARG_KEYS} (0 for the others). */
    private static final int[] INTEGER_ARGS = {TraceEvent.EXTERNAL_ID, TraceEvent.EXTERNAL_ID, TraceEvent.CORRELATION,
            TraceEvent.DEVICE, TraceEvent.STREAM, TraceEvent.BYTES, TraceEvent.CBID, TraceEvent.GRAPH_ID,
            TraceEvent.GRAPH_NODE_ID, 0, 0, 0, 0, TraceEvent.SORT_INDEX};

    /**
     * Receives each complete event, in file order, and gives the holder to read the next one into, or null
     * to end the scan after this entry.
     */
    interface Events {
        TraceEvent event(TraceEvent e);
    }

    private final RecordingInput in;
    private final NameDictionary names;
    private final EventFields fields;
    private final ReadResult result;
    private final boolean keepPythonFunctions;
    private final JsonFactory factory;
    private final ByteNames nameIds = new ByteNames();
    private final ByteNames categoryIds = new ByteNames();
    private final List<EventKind> categoryKinds = new ArrayList<>();
    private final List<String> categoryNames = new ArrayList<>();
    private char[] chars = new char[64];

    /** The window: {@code b[0]} is at absolute offset {@code base}, input up to {@code end}. */
    private byte[] b;
    private long base;
    private int end;
    private int pos;
    /** The last string scanned: its bytes between the quotes, and whether they are ASCII without escapes. */
    private int strStart;
    private int strEnd;
    private boolean strPlain;
    /** The last number scanned: its bytes, and whether it has a fraction or exponent. */
    private int numStart;
    private int numEnd;
    private boolean numFloat;
    /**
     * Its value read while scanning it, as {@link DecimalTime} reads it: the integer digits (their value
     * exact when there are at most {@value #EXACT_DIGITS}), the sign, the first three fraction digits as
     * thousandths and whether the fourth rounds them up; an exponent is left to {@link DecimalTime}.
     */
    private int numDigits;
    private long numValue;
    private boolean numNegative;
    private long numThousandths;
    private boolean numRoundUp;
    private boolean numExponent;
    /** The value of the last {@link #integer} call that returned true. */
    private long number;

    /** Where the last {@link #scan} stopped, and whether a list entry comes just before that offset. */
    private long stoppedAt;
    private boolean stoppedAfterValue;
    private boolean ranOut;

    EventScanner(RecordingInput in, NameDictionary names, EventFields fields, ReadResult result,
                 boolean keepPythonFunctions, JsonFactory factory) {
        this.in = in;
        this.names = names;
        this.fields = fields;
        this.result = result;
        this.keepPythonFunctions = keepPythonFunctions;
        this.factory = factory;
    }

    long stoppedAt() {
        return stoppedAt;
    }

    boolean stoppedAfterValue() {
        return stoppedAfterValue;
    }

    /** The absolute offset the running scan has reached: in an {@link Events} callback, the end of its entry. */
    long position() {
        return base + pos;
    }

    /** The last scan stopped because the input had no more bytes (not for Jackson). */
    boolean ranOut() {
        return ranOut;
    }

    /**
     * Reads list entries from absolute offset {@code at} (inside the event list; {@code afterValue}
     * when an entry ends just before it) into {@code e}, handing each to {@code events}, until the
     * list's closing bracket or anything Jackson must read: {@link #stoppedAt()} says where.
     */
    void scan(long at, boolean afterValue, TraceEvent e, Events events) throws IOException {
        window();
        pos = (int) (at - base);
        while (true) {
            long mark = base + pos;
            boolean markAfterValue = afterValue;
            try {
                int c = ws();
                if (afterValue) {
                    if (c != ',') {
                        stop(base + pos, true);
                        return;
                    }
                    pos++;
                    afterValue = false;
                    continue;
                }
                if (c != '{') {
                    stop(base + pos, false);
                    return;
                }
                result.hold();
                event(e);
                result.release(true);
                e = events.event(e);
                if (e == null) {
                    stop(base + pos, true);
                    return;
                }
                afterValue = true;
            } catch (Stop s) {
                result.release(false);
                boolean forJackson = s == JACKSON || base + end - mark > MAX_EVENT;
                if (forJackson || !in.fillFrom(mark)) {
                    stop(mark, markAfterValue);
                    ranOut = !forJackson;
                    return;
                }
                window();
                pos = (int) (mark - base);
                afterValue = markAfterValue;
            }
        }
    }

    private void window() {
        b = in.buffer();
        base = in.bufferStart();
        end = in.bufferLength();
    }

    private void stop(long at, boolean afterValue) {
        ranOut = false;
        stoppedAt = at;
        stoppedAfterValue = afterValue;
    }

    /** The byte at {@code pos} after white space (not consumed). */
    private int ws() {
        byte[] b = this.b;
        int i = pos;
        while (true) {
            if (i >= end) {
                pos = i;
                throw MORE;
            }
            byte x = b[i];
            if (x != ' ' && x != '\n' && x != '\r' && x != '\t') {
                pos = i;
                return x;
            }
            i++;
        }
    }

    /** One event object, at {@code pos}; the same rules as {@link EventFields#read}. */
    private void event(TraceEvent e) throws IOException {
        e.reset();
        pos++;
        int c = ws();
        if (c == '}') {
            pos++;
            return;
        }
        boolean skipping = false;
        while (true) {
            if (c != '"') {
                throw JACKSON;
            }
            int key = key(EVENT_KEYS, skipping);
            c = ws();
            switch (key) {
                case PH:
                    if (c != '"') {
                        throw JACKSON;
                    }
                    str();
                    if (strEnd > strStart) {
                        e.ph = strPlain ? (char) b[strStart] : decoded().charAt(0);
                        // Flows, instants and counters are only counted: the rest is checked, not read.
                        skipping = e.ph != 'X' && e.ph != 'M';
                    }
                    break;
                case CAT:
                    if (c != '"') {
                        throw JACKSON;
                    }
                    str();
                    category(e);
                    if (e.kind == EventKind.PYTHON_FUNCTION && !keepPythonFunctions && e.nameId >= 0
                            && !EventKind.isModuleName(names.name(e.nameId))) {
                        e.kind = EventKind.OTHER; // its name came first: not an nn.Module range
                    }
                    skipping = e.kind == EventKind.OTHER;
                    break;
                case NAME:
                    if (e.kind == EventKind.PYTHON_FUNCTION && !keepPythonFunctions) {
                        // Only nn.Module ranges are kept of the python_function events: the rest are
                        // skipped without their name taking a place in the dictionary.
                        boolean module = false;
                        if (c == '"') {
                            str();
                            module = strPlain ? EventKind.isModuleName(b, strStart, strEnd - strStart)
                                    : EventKind.isModuleName(decoded());
                            if (module) {
                                nameOfString(e);
                            }
                        } else {
                            skip(c, 1);
                        }
                        if (!module) {
                            e.kind = EventKind.OTHER;
                            skipping = true;
                        }
                        break;
                    }
                    name(c, e);
                    break;
                case PID:
                    if (integer(c)) {
                        e.pid = number;
                        e.present |= TraceEvent.PID;
                    }
                    break;
                case TID:
                    if (integer(c)) {
                        e.tid = number;
                        e.present |= TraceEvent.TID;
                    }
                    break;
                case TS:
                    long ts = time(c);
                    if (ts != DecimalTime.INVALID) {
                        e.tsNs = ts;
                        e.hasTs = true;
                    }
                    break;
                case DUR:
                    long dur = time(c);
                    if (dur != DecimalTime.INVALID) {
                        e.durNs = dur;
                        e.present |= TraceEvent.DUR;
                    }
                    break;
                case ARGS:
                    if (c == '{') {
                        args(e);
                    } else {
                        skip(c, 1);
                    }
                    break;
                default:
                    skip(c, 1);
            }
            c = next('}');
            if (c == CLOSED) {
                return;
            }
        }
    }

    /**
     * After a member or entry: {@link #CLOSED} at the closing {@code close} (consumed, also after a
     * trailing comma), else, after the comma, the byte that starts the next one (at {@code pos}).
     */
    private int next(int close) {
        int c = ws();
        if (c == ',') {
            pos++;
            c = ws();
            if (c != close) {
                return c;
            }
        } else if (c != close) {
            throw JACKSON;
        }
        pos++;
        return CLOSED;
    }

    /**
     * A member's key at {@code pos} (its opening quote) and the colon after it: the key's index among
     * {@code keys}, or -1. When {@code skipping} (the rest of an event only counted: flows, instants and
     * counters, a third to a half of a trace's events) any key is -1, not looked up; else a key with escapes
     * or non-ASCII bytes is left to Jackson. A plain key with its colon right after it (nearly every key of a
     * trace) is found eight bytes at a time ({@link #special}); the rest is read as any string.
     */
    private int key(Keys keys, boolean skipping) {
        byte[] b = this.b;
        int at = pos + 1;
        for (int i = at; i + Long.BYTES + 2 <= end && i - at < MAX_FAST_KEY; i += Long.BYTES) {
            long special = special((long) LONGS.get(b, i));
            if (special != 0) {
                int close = i + (Long.numberOfTrailingZeros(special) >>> 3);
                if (b[close] == '"' && b[close + 1] == ':') {
                    pos = close + 2;
                    return skipping ? -1 : keys.code(b, at, close - at);
                }
                break;
            }
        }
        str();
        if (skipping) {
            colon();
            return -1;
        }
        if (!strPlain) {
            throw JACKSON;
        }
        int code = keys.code(b, strStart, strEnd - strStart);
        colon();
        return code;
    }

    private void colon() {
        if (ws() != ':') {
            throw JACKSON;
        }
        pos++;
    }

    private void args(TraceEvent e) throws IOException {
        pos++;
        int c = ws();
        if (c == '}') {
            pos++;
            return;
        }
        while (true) {
            if (c != '"') {
                throw JACKSON;
            }
            int key = key(ARG_KEYS, false);
            c = ws();
            arg(key, c, e);
            c = next('}');
            if (c == CLOSED) {
                return;
            }
        }
    }

    /** One {@code args} value, by the index of its key in {@link #ARG_KEYS} (-1: not read). */
    private void arg(int key, int c, TraceEvent e) throws IOException {
        switch (key) {
            case 0, 1, 2, 3, 4, 5, 6, 7, 8, 13 -> {
                if (integer(c)) {
                    e.setInteger(INTEGER_ARGS[key], number);
                }
            }
            case 9 -> {
                if (triple(c, e.grid)) {
                    e.present |= TraceEvent.GRID;
                }
            }
            case 10 -> {
                if (triple(c, e.block)) {
                    e.present |= TraceEvent.BLOCK;
                }
            }
            case 11, 12 -> e.metaValue = text(c);
            case 14 -> e.comm().collective = text(c);
            case 15 -> e.comm().dtype = text(c);
            case 16 -> e.comm().inNelems = integer(c) ? number : null;
            case 17 -> e.comm().outNelems = integer(c) ? number : null;
            case 18 -> e.comm().groupSize = integer(c) ? (int) number : null;
            case 19, 20 -> e.comm().pgName = text(c);
            case 21 -> e.comm().pgDesc = text(c);
            case 22 -> e.comm().pgRanks = text(c);
            case 23 -> e.comm().rank = integer(c) ? (int) number : null;
            case 24 -> e.comm().srcRank = integer(c) ? (int) number : null;
            case 25 -> e.comm().dstRank = integer(c) ? (int) number : null;
            case 26 -> e.comm().seq = integer(c) ? number : null;
            case 27 -> e.comm().commsId = integer(c) ? Long.toUnsignedString(number) : null;
            case 28 -> e.comm().inSplit = text(c);
            case 29 -> e.comm().outSplit = text(c);
            case 30 -> compact(c, e.touchInputs().dims);
            case 31 -> compact(c, e.touchInputs().types);
            case 32 -> compact(c, e.touchInputs().strides);
            case 33 -> compact(c, e.touchInputs().concrete);
            case 34 -> {
                if (c == 't') {
                    literal(TRUE);
                    e.comm().isAsync = true;
                } else if (c == 'f') {
                    literal(FALSE);
                    e.comm().isAsync = false;
                } else {
                    e.comm().isAsync = integer(c) && number != 0;
                }
            }
            default -> skip(c, 2);
        }
    }

    // ---- values ----

    /** A string at {@code pos}: sets {@link #strStart}, {@link #strEnd}, {@link #strPlain}; checks escapes and UTF-8. */
    private void str() {
        byte[] b = this.b;
        int end = this.end;
        int i = pos + 1;
        boolean plain = true;
        while (true) {
            i = plainRun(b, i, end);
            if (i >= end) {
                throw MORE;
            }
            byte x = b[i];
            if (x == '"') {
                break;
            } else if (x == '\\') {
                plain = false;
                i = escape(i);
            } else if (x < 0) {
                plain = false;
                i = utf8(i);
            } else {
                throw JACKSON; // a control character: legal for Jackson here, but rare; it reads it
            }
        }
        if (i - pos - 1 > KinetoReader.MAX_STRING) {
            // Over Jackson's limit on a string or key (characters of a string, UTF-8 bytes of a key: never more
            // than the bytes counted here), such a string is left to it, before a name is kept: Jackson then
            // reads it as it reads any other, failing where it checks the limit.
            throw JACKSON;
        }
        strStart = pos + 1;
        strEnd = i;
        strPlain = plain;
        pos = i + 1;
    }

    /**
     * Bit 7 set in each byte of {@code w} that is a quote, a backslash, below 0x20 or 0x80 and above (where
     * a plain string stops), and maybe in bytes after the first such one (borrows), never before it.
     */
    private static long special(long w) {
        long quote = w ^ (ONES * '"');
        long backslash = w ^ (ONES * '\\');
        return ((quote - ONES) | (backslash - ONES) | (w - ONES * 0x20) | w) & HIGHS;
    }

    /**
     * The index of the first byte from {@code i} on (before {@code end}) that is a quote, a backslash, a
     * control character or not ASCII, or {@code end}: eight bytes at a time, since names are long.
     */
    private static int plainRun(byte[] b, int i, int end) {
        for (; i + Long.BYTES <= end; i += Long.BYTES) {
            long special = special((long) LONGS.get(b, i));
            if (special != 0) {
                return i + (Long.numberOfTrailingZeros(special) >>> 3);
            }
        }
        for (; i < end; i++) {
            byte x = b[i];
            if (x < 0x20 || x == '"' || x == '\\') {
                return i;
            }
        }
        return end;
    }

    private int at(int i) {
        if (i >= end) {
            throw MORE;
        }
        return b[i];
    }

    private int escape(int i) {
        int c = at(i + 1);
        switch (c) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
                return i + 2;
            case 'u':
                for (int k = i + 2; k < i + 6; k++) {
                    int h = at(k);
                    if (!(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F')) {
                        throw JACKSON;
                    }
                }
                return i + 6;
            default:
                throw JACKSON;
        }
    }

    /** A well-formed UTF-8 sequence (stricter than Jackson, which then reads what this refuses). */
    private int utf8(int i) {
        int lead = at(i) & 0xFF;
        int n;
        int min = 0x80;
        int max = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            n = 1;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            n = 2;
            min = lead == 0xE0 ? 0xA0 : 0x80;
            max = lead == 0xED ? 0x9F : 0xBF;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            n = 3;
            min = lead == 0xF0 ? 0x90 : 0x80;
            max = lead == 0xF4 ? 0x8F : 0xBF;
        } else {
            throw JACKSON;
        }
        int first = at(i + 1) & 0xFF;
        if (first < min || first > max) {
            throw JACKSON;
        }
        for (int k = i + 2; k <= i + n; k++) {
            if ((at(k) & 0xC0) != 0x80) {
                throw JACKSON;
            }
        }
        return i + n + 1;
    }

    /** A JSON number at {@code pos}: sets {@link #numStart}, {@link #numEnd}, {@link #numFloat} and its value. */
    private void num() {
        byte[] b = this.b;
        int end = this.end;
        int i = pos;
        boolean negative = at(i) == '-';
        if (negative) {
            i++;
        }
        int c = at(i);
        int digitsFrom = i;
        long value = 0;
        if (c == '0') {
            c = at(++i);
            if (c >= '0' && c <= '9') {
                throw JACKSON; // leading zero
            }
        } else if (c >= '1' && c <= '9') {
            do {
                value = value * 10 + (c - '0');
                if (++i >= end) {
                    throw MORE;
                }
                c = b[i];
            } while (c >= '0' && c <= '9');
        } else {
            throw JACKSON; // -Infinity, -INF, or not a number
        }
        int digits = i - digitsFrom;
        boolean isFloat = false;
        long thousandths = 0;
        boolean roundUp = false;
        if (c == '.') {
            isFloat = true;
            c = at(++i);
            if (c < '0' || c > '9') {
                throw JACKSON;
            }
            int fractionFrom = i;
            do {
                int k = i - fractionFrom;
                if (k < 3) {
                    thousandths = thousandths * 10 + (c - '0');
                } else if (k == 3) {
                    roundUp = c >= '5';
                }
                if (++i >= end) {
                    throw MORE;
                }
                c = b[i];
            } while (c >= '0' && c <= '9');
            for (int k = i - fractionFrom; k < 3; k++) {
                thousandths *= 10;
            }
        }
        boolean exponent = c == 'e' || c == 'E';
        if (exponent) {
            isFloat = true;
            c = at(++i);
            if (c == '+' || c == '-') {
                c = at(++i);
            }
            if (c < '0' || c > '9') {
                throw JACKSON;
            }
            do {
                c = at(++i);
            } while (c >= '0' && c <= '9');
        }
        if (i - pos > MAX_NUMBER) {
            throw JACKSON;
        }
        numStart = pos;
        numEnd = i;
        numFloat = isFloat;
        numDigits = digits;
        numValue = value;
        numNegative = negative;
        numThousandths = thousandths;
        numRoundUp = roundUp;
        numExponent = exponent;
        pos = i;
    }

    private void literal(byte[] word) {
        for (int k = 0; k < word.length; k++) {
            if (at(pos + k) != word[k]) {
                throw JACKSON;
            }
        }
        // Jackson fails on the token itself when a letter or digit runs on from it ("nullx"), before a name's
        // value would be added to the dictionary: such a token, and anything unusual after one, is left to it.
        int after = at(pos + word.length) & 0xFF;
        if (after >= '0' && after != ']' && after != '}') {
            throw JACKSON;
        }
        pos += word.length;
    }

    /** Skips (and checks) the value starting with {@code c} at {@code pos}. */
    private void skip(int c, int depth) {
        switch (c) {
            case '"' -> str();
            case '{', '[' -> {
                nest(depth);
                int close = c == '{' ? '}' : ']';
                pos++;
                c = ws();
                if (c == close) {
                    pos++;
                    return;
                }
                while (true) {
                    if (close == '}') {
                        if (c != '"') {
                            throw JACKSON;
                        }
                        str();
                        colon();
                        c = ws();
                    }
                    skip(c, depth + 1);
                    c = next(close);
                    if (c == CLOSED) {
                        return;
                    }
                }
            }
            case 't' -> literal(TRUE);
            case 'f' -> literal(FALSE);
            case 'n' -> literal(NULL);
            default -> num();
        }
    }

    private static void nest(int depth) {
        if (depth > MAX_DEPTH) {
            throw JACKSON;
        }
    }

    /** The text of the last string scanned, decoded by Jackson (escapes, UTF-8), or by widening plain ASCII. */
    private String decoded() throws IOException {
        if (strPlain) {
            return new String(b, strStart, strEnd - strStart, StandardCharsets.ISO_8859_1);
        }
        try (JsonParser p = factory.createParser(b, strStart - 1, strEnd - strStart + 2)) {
            if (p.nextToken() != JsonToken.VALUE_STRING) {
                throw JACKSON;
            }
            return p.getText();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw JACKSON;
        }
    }

    /** The last string's text as characters in {@link #chars}; returns the length. */
    private int decodedChars() throws IOException {
        if (!strPlain) {
            String s = decoded();
            ensureChars(s.length());
            s.getChars(0, s.length(), chars, 0);
            return s.length();
        }
        return widen(strStart, strEnd);
    }

    private int widen(int from, int to) {
        int len = to - from;
        ensureChars(len);
        char[] c = chars;
        byte[] b = this.b;
        for (int k = 0; k < len; k++) {
            c[k] = (char) b[from + k];
        }
        return len;
    }

    private void ensureChars(int len) {
        if (chars.length < len) {
            chars = new char[Math.max(len, chars.length * 2)];
        }
    }

    private void category(TraceEvent e) throws IOException {
        int len = strEnd - strStart;
        int h = ByteNames.hash(b, strStart, len);
        int id = categoryIds.find(b, strStart, len, h);
        if (id < 0) {
            String cat = decoded();
            id = categoryNames.indexOf(cat);
            if (id < 0) {
                id = categoryNames.size();
                categoryNames.add(cat);
                categoryKinds.add(EventKind.ofCategory(cat));
            }
            categoryIds.put(b, strStart, len, h, id);
        }
        e.kind = categoryKinds.get(id);
        e.categoryName = categoryNames.get(id);
    }

    private void name(int c, TraceEvent e) throws IOException {
        if (c == '"') {
            str();
            nameOfString(e);
        } else if (c == '{' || c == '[') {
            skip(c, 1);
        } else {
            e.nameId = names.idOf(scalarText(c));
        }
    }

    /** The id of the string just scanned ({@link #str}) as the event's name. */
    private void nameOfString(TraceEvent e) throws IOException {
        int len = strEnd - strStart;
        int h = ByteNames.hash(b, strStart, len);
        int id = nameIds.find(b, strStart, len, h);
        if (id < 0) {
            int chars = decodedChars();
            id = names.idOf(this.chars, 0, chars);
            nameIds.put(b, strStart, len, h, id);
        }
        e.nameId = id;
    }

    /** A number's or literal's text as Jackson gives it ({@code getText()}). */
    private String scalarText(int c) {
        switch (c) {
            case 't':
                literal(TRUE);
                return "true";
            case 'f':
                literal(FALSE);
                return "false";
            case 'n':
                literal(NULL);
                return "null";
            default:
                num();
                return new String(b, numStart, numEnd - numStart, StandardCharsets.ISO_8859_1);
        }
    }

    /** Like {@link EventFields}: an integer id or count; unsigned values above 2^63 keep their bit pattern. */
    private boolean integer(int c) throws IOException {
        switch (c) {
            case '"':
                str();
                if (fields.integerText(decoded())) {
                    number = fields.number();
                    return true;
                }
                return false;
            case '[':
            case '{':
            case 't':
            case 'f':
            case 'n':
                skip(c, 1);
                result.anomaly("values_of_unexpected_type");
                return false;
            default:
                num();
                if (numFloat) {
                    result.anomaly("values_of_unexpected_type");
                    return false;
                }
                return integerDigits();
        }
    }

    private boolean integerDigits() {
        if (numDigits <= EXACT_DIGITS) {
            number = numNegative ? -numValue : numValue;
            return true;
        }
        if (numDigits == EXACT_DIGITS + 1 && !numNegative) {
            // 10^19 < 2^64: the value of 19 digits is exact as an unsigned long (hashes such as Comms Id).
            if (numValue >= 0) {
                number = numValue;
            } else {
                fields.unsigned(numValue);
                number = fields.number();
            }
            return true;
        }
        String text = new String(b, numStart, numEnd - numStart, StandardCharsets.ISO_8859_1);
        try {
            number = Long.parseLong(text);
            return true;
        } catch (NumberFormatException e) {
            if (fields.unsigned(text)) {
                number = fields.number();
                return true;
            }
            return false;
        }
    }

    /** Microseconds (number or string) to nanoseconds, as {@link EventFields} does it. */
    private long time(int c) throws IOException {
        long ns;
        if (c == '"') {
            str();
            ns = DecimalTime.microsToNanos(chars, 0, decodedChars());
        } else if (c == '-' || c >= '0' && c <= '9') {
            num();
            if (numExponent) {
                ns = DecimalTime.microsToNanos(chars, 0, widen(numStart, numEnd));
            } else {
                // More integer digits than a long holds exactly are more microseconds than fit anyway.
                ns = numDigits <= EXACT_DIGITS ? DecimalTime.nanos(numNegative, numValue, numThousandths, numRoundUp)
                        : DecimalTime.INVALID;
            }
        } else {
            skip(c, 1);
            ns = DecimalTime.INVALID;
        }
        if (ns == DecimalTime.INVALID) {
            result.anomaly("timestamps_not_finite_ignored");
        }
        return ns;
    }

    private boolean triple(int c, int[] into) throws IOException {
        if (c != '[') {
            skip(c, 2);
            return false;
        }
        pos++;
        c = ws();
        int n = 0;
        int integers = 0;
        if (c == ']') {
            pos++;
            return false;
        }
        while (true) {
            if (n < 3) {
                if (integer(c)) {
                    into[n] = (int) number;
                    integers++;
                }
            } else {
                skip(c, 3);
            }
            n++;
            c = next(']');
            if (c == CLOSED) {
                return n == 3 && integers == 3;
            }
        }
    }

    /** Like {@link EventFields}: a string's text, a scalar's text, null for null; arrays and objects go to Jackson. */
    private String text(int c) throws IOException {
        if (c == '"') {
            str();
            return decoded();
        }
        if (c == '{' || c == '[') {
            throw JACKSON;
        }
        if (c == 'n') {
            literal(NULL);
            return null;
        }
        return scalarText(c);
    }

    /** The value at {@code pos} as compact JSON, as {@link EventFields} writes it from Jackson's tokens. */
    private void compact(int c, StringBuilder out) throws IOException {
        out.setLength(0);
        compactValue(c, out, 1);
    }

    private void compactValue(int c, StringBuilder out, int depth) throws IOException {
        switch (c) {
            case '"' -> {
                str();
                if (strPlain) {
                    out.append('"');
                    for (int k = strStart; k < strEnd; k++) {
                        out.append((char) b[k]);
                    }
                    out.append('"');
                } else {
                    String s = decoded();
                    EventFields.quoted(s.toCharArray(), 0, s.length(), out);
                }
            }
            case '{', '[' -> {
                nest(depth);
                int close = c == '{' ? '}' : ']';
                out.append((char) c);
                pos++;
                c = ws();
                if (c == close) {
                    pos++;
                } else {
                    while (true) {
                        if (close == '}') {
                            if (c != '"') {
                                throw JACKSON;
                            }
                            compactValue(c, out, depth);
                            colon();
                            out.append(':');
                            c = ws();
                        }
                        compactValue(c, out, depth + 1);
                        c = next(close);
                        if (c == CLOSED) {
                            break;
                        }
                        out.append(',');
                    }
                }
                out.append((char) close);
            }
            default -> out.append(scalarText(c));
        }
    }

    /** The first {@code min(len, 8)} bytes at {@code off} as a little-endian long, zero above them. */
    private static long head(byte[] b, int off, int len) {
        if (len >= Long.BYTES) {
            return (long) LONGS.get(b, off);
        }
        if (off + Long.BYTES <= b.length) {
            return (long) LONGS.get(b, off) & ((1L << (Byte.SIZE * len)) - 1);
        }
        long w = 0;
        for (int k = 0; k < len; k++) {
            w |= (b[off + k] & 0xFFL) << (Byte.SIZE * k);
        }
        return w;
    }

    /**
     * A fixed set of ASCII keys, matched by their bytes eight at a time: the first eight and the last
     * eight (which overlap for keys shorter than 16), the bytes between them only for longer keys.
     */
    private static final class Keys {
        private static final int SLOTS = 128;
        private final byte[][] keys = new byte[SLOTS][];
        private final long[] heads = new long[SLOTS];
        private final long[] tails = new long[SLOTS];
        private final int[] codes = new int[SLOTS];

        Keys(String... names) {
            for (int code = 0; code < names.length; code++) {
                byte[] k = names[code].getBytes(StandardCharsets.US_ASCII);
                long head = head(k, 0, k.length);
                int slot = slot(head, k.length);
                while (keys[slot] != null) {
                    slot = (slot + 1) & (SLOTS - 1);
                }
                keys[slot] = k;
                heads[slot] = head;
                tails[slot] = k.length > Long.BYTES ? (long) LONGS.get(k, k.length - Long.BYTES) : 0;
                codes[slot] = code;
            }
        }

        private static int slot(long head, int len) {
            return (int) (((head ^ len) * 0x9E3779B97F4A7C15L) >>> (Long.SIZE - 7));
        }

        /** The index of the key among those given, or -1. */
        int code(byte[] b, int off, int len) {
            if (len <= Long.BYTES) {
                return code(head(b, off, len), len);
            }
            long head = (long) LONGS.get(b, off);
            long tail = (long) LONGS.get(b, off + len - Long.BYTES);
            byte[] k;
            for (int slot = slot(head, len); (k = keys[slot]) != null; slot = (slot + 1) & (SLOTS - 1)) {
                if (heads[slot] == head && k.length == len && tails[slot] == tail && (len <= 2 * Long.BYTES
                        || Arrays.equals(k, Long.BYTES, len, b, off + Long.BYTES, off + len))) {
                    return codes[slot];
                }
            }
            return -1;
        }

        /** The index of a key of at most eight bytes, given as {@link #head}, or -1. */
        int code(long head, int len) {
            byte[] k;
            for (int slot = slot(head, len); (k = keys[slot]) != null; slot = (slot + 1) & (SLOTS - 1)) {
                if (heads[slot] == head && k.length == len) {
                    return codes[slot];
                }
            }
            return -1;
        }
    }
}
