package dev.steptrace.ingest.kineto;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the fields of one event object into a {@link TraceEvent}: the keys every phase has, and the
 * {@code args} keys some analysis needs; everything else is skipped token by token.
 *
 * <p>Values out of range never throw: an id above 2^63 keeps its unsigned bit pattern, one above
 * 2^64, a NaN, {@code "inf"} or a value of the wrong type leaves the field absent and is counted.
 */
final class EventFields {
    private final NameDictionary names;
    private final NameDictionary categories = new NameDictionary();
    private final List<EventKind> categoryKinds = new ArrayList<>();
    private final ReadResult result;
    private final ObjectMapper mapper;
    /** The value of the last {@link #integer} call that returned true. */
    private long number;


    /**
     * False when python_function events other than nn.Module ranges ({@link EventKind#MODULE_PREFIX}) are
     * dropped: they are then skipped without being read past their name.
     */
    private final boolean keepPythonFunctions;

    EventFields(NameDictionary names, ReadResult result, ObjectMapper mapper, boolean keepPythonFunctions) {
        this.names = names;
        this.result = result;
        this.mapper = mapper;
        this.keepPythonFunctions = keepPythonFunctions;
    }

    /** Reads the object whose START_OBJECT is the current token. */
    void read(JsonParser p, TraceEvent e) throws IOException {
        e.reset();
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            switch (field) {
                case "ph":
                    if (t == JsonToken.VALUE_STRING && p.getTextLength() > 0) {
                        e.ph = p.getTextCharacters()[p.getTextOffset()];
                        if (e.ph != 'X' && e.ph != 'M') {
                            // Flows (half of a trace), instants and counters are only counted: skip the
                            // rest of the object at tokenizer speed instead of decoding its fields.
                            skipRest(p);
                            return;
                        }
                    } else {
                        p.skipChildren();
                    }
                    break;
                case "cat":
                    if (t == JsonToken.VALUE_STRING) {
                        category(p, e);
                        if (e.kind == EventKind.PYTHON_FUNCTION && !keepPythonFunctions && e.nameId >= 0
                                && !EventKind.isModuleName(names.name(e.nameId))) {
                            e.kind = EventKind.OTHER; // its name came first: not an nn.Module range
                        }
                        if (e.kind == EventKind.OTHER) {
                            skipRest(p);
                            return;
                        }
                    } else {
                        p.skipChildren();
                    }
                    break;
                case "name":
                    if (e.kind == EventKind.PYTHON_FUNCTION && !keepPythonFunctions && (t != JsonToken.VALUE_STRING
                            || !EventKind.isModuleName(p.getTextCharacters(), p.getTextOffset(), p.getTextLength()))) {
                        // Only nn.Module ranges are kept of the python_function events.
                        e.kind = EventKind.OTHER;
                        p.skipChildren();
                        skipRest(p);
                        return;
                    }
                    if (t == JsonToken.VALUE_STRING) {
                        e.nameId = names.idOf(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                    } else if (t.isScalarValue()) {
                        e.nameId = names.idOf(p.getText());
                    } else {
                        p.skipChildren();
                    }
                    break;
                case "pid":
                    if (integer(p, t)) {
                        e.pid = number;
                        e.present |= TraceEvent.PID;
                    }
                    break;
                case "tid":
                    if (integer(p, t)) {
                        e.tid = number;
                        e.present |= TraceEvent.TID;
                    }
                    break;
                case "ts":
                    long ts = time(p, t);
                    if (ts != DecimalTime.INVALID) {
                        e.tsNs = ts;
                        e.hasTs = true;
                    }
                    break;
                case "dur":
                    long dur = time(p, t);
                    if (dur != DecimalTime.INVALID) {
                        e.durNs = dur;
                        e.present |= TraceEvent.DUR;
                    }
                    break;
                case "args":
                    if (t == JsonToken.START_OBJECT) {
                        readArgs(p, e);
                    } else {
                        p.skipChildren();
                    }
                    break;
                default:
                    p.skipChildren();
            }
        }
    }

    /** Skips to the end of the current event object. */
    private static void skipRest(JsonParser p) throws IOException {
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
            if (t == null) {
                return;
            }
            p.skipChildren();
        }
    }

    private void readArgs(JsonParser p, TraceEvent e) throws IOException {
        String key;
        while ((key = p.nextFieldName()) != null) {
            JsonToken t = p.nextToken();
            switch (key) {
                case "External id":
                case "external id":
                    if (integer(p, t)) {
                        e.externalId = number;
                        e.present |= TraceEvent.EXTERNAL_ID;
                    }
                    break;
                case "correlation":
                    if (integer(p, t)) {
                        e.correlation = number;
                        e.present |= TraceEvent.CORRELATION;
                    }
                    break;
                case "device":
                    if (integer(p, t)) {
                        e.device = (int) number;
                        e.present |= TraceEvent.DEVICE;
                    }
                    break;
                case "stream":
                    if (integer(p, t)) {
                        e.stream = number;
                        e.present |= TraceEvent.STREAM;
                    }
                    break;
                case "bytes":
                    if (integer(p, t)) {
                        e.bytes = number;
                        e.present |= TraceEvent.BYTES;
                    }
                    break;
                case "cbid":
                    if (integer(p, t)) {
                        e.cbid = (int) number;
                        e.present |= TraceEvent.CBID;
                    }
                    break;
                case "graph id":
                    if (integer(p, t)) {
                        e.graphId = number;
                        e.present |= TraceEvent.GRAPH_ID;
                    }
                    break;
                case "graph node id":
                    if (integer(p, t)) {
                        e.graphNodeId = number;
                        e.present |= TraceEvent.GRAPH_NODE_ID;
                    }
                    break;
                case "grid":
                    if (triple(p, t, e.grid)) {
                        e.present |= TraceEvent.GRID;
                    }
                    break;
                case "block":
                    if (triple(p, t, e.block)) {
                        e.present |= TraceEvent.BLOCK;
                    }
                    break;
                case "name":
                case "labels":
                    e.metaValue = text(p, t);
                    break;
                case "sort_index":
                    if (integer(p, t)) {
                        e.sortIndex = number;
                        e.present |= TraceEvent.SORT_INDEX;
                    }
                    break;
                case "Collective name":
                    e.comm().collective = text(p, t);
                    break;
                case "dtype":
                    e.comm().dtype = text(p, t);
                    break;
                case "In msg nelems":
                    e.comm().inNelems = boxedLong(p, t);
                    break;
                case "Out msg nelems":
                    e.comm().outNelems = boxedLong(p, t);
                    break;
                case "Group size":
                    e.comm().groupSize = boxedInt(p, t);
                    break;
                case "Process Group Name":
                case "Process Group ID":
                    e.comm().pgName = text(p, t);
                    break;
                case "Process Group Description":
                    e.comm().pgDesc = text(p, t);
                    break;
                case "Process Group Ranks":
                    e.comm().pgRanks = text(p, t);
                    break;
                case "Rank":
                    e.comm().rank = boxedInt(p, t);
                    break;
                case "Src Rank":
                    e.comm().srcRank = boxedInt(p, t);
                    break;
                case "Dst Rank":
                    e.comm().dstRank = boxedInt(p, t);
                    break;
                case "Seq":
                    e.comm().seq = boxedLong(p, t);
                    break;
                case "Comms Id":
                    e.comm().commsId = unsignedText(p, t);
                    break;
                case "In split size":
                    e.comm().inSplit = text(p, t);
                    break;
                case "Out split size":
                    e.comm().outSplit = text(p, t);
                    break;
                case "Input Dims":
                case "Input type":
                case "Input Strides":
                case "Concrete Inputs":
                    compact(p, t, e.touchInputs().of(key));
                    break;
                case "Is asynchronized op":
                    e.comm().isAsync = t == JsonToken.VALUE_TRUE
                            || (t != JsonToken.VALUE_FALSE && integer(p, t) && number != 0);
                    break;
                default:
                    p.skipChildren();
            }
        }
    }

    /**
     * Appends the value that starts at token {@code t} to {@code out} as compact JSON, from the
     * tokenizer's buffers (shapes are kept for every CPU op, so no tree and no String per value).
     */
    private static void compact(JsonParser p, JsonToken t, StringBuilder out) throws IOException {
        out.setLength(0);
        int depth = 0;
        for (JsonToken tok = t; tok != null; tok = p.nextToken()) {
            if (tok != JsonToken.END_ARRAY && tok != JsonToken.END_OBJECT && out.length() > 0
                    && "[{:".indexOf(out.charAt(out.length() - 1)) < 0) {
                out.append(',');
            }
            switch (tok) {
                case START_ARRAY -> {
                    out.append('[');
                    depth++;
                }
                case START_OBJECT -> {
                    out.append('{');
                    depth++;
                }
                case END_ARRAY -> {
                    out.append(']');
                    depth--;
                }
                case END_OBJECT -> {
                    out.append('}');
                    depth--;
                }
                case FIELD_NAME -> {
                    quoted(p, out);
                    out.append(':');
                }
                case VALUE_STRING -> quoted(p, out);
                default -> out.append(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
            }
            if (depth == 0) {
                return;
            }
        }
    }

    private static void quoted(JsonParser p, StringBuilder out) throws IOException {
        quoted(p.getTextCharacters(), p.getTextOffset(), p.getTextLength(), out);
    }

    /** A string as compact JSON: quotes, backslashes and control characters escaped, the rest as is. */
    static void quoted(char[] c, int start, int length, StringBuilder out) {
        int end = start + length;
        out.append('"');
        int from = start;
        for (int i = start; i < end; i++) {
            char ch = c[i];
            if (ch == '"' || ch == '\\' || ch < 0x20) {
                // Type names and scalars rarely need escaping: copy the runs between escapes whole.
                out.append(c, from, i - from);
                if (ch < 0x20) {
                    out.append(String.format("\\u%04x", (int) ch));
                } else {
                    out.append('\\').append(ch);
                }
                from = i + 1;
            }
        }
        out.append(c, from, end - from).append('"');
    }

    private void category(JsonParser p, TraceEvent e) throws IOException {
        int id = categories.idOf(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        if (id == categoryKinds.size()) {
            categoryKinds.add(EventKind.ofCategory(categories.name(id)));
        }
        e.kind = categoryKinds.get(id);
        e.categoryName = categories.name(id);
    }

    /** An integer id or count; unsigned values above 2^63 keep their bit pattern. */
    private boolean integer(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case VALUE_NUMBER_INT:
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    return unsigned(p.getText());
                }
                number = p.getLongValue();
                return true;
            case VALUE_STRING:
                return integerText(p.getText());
            case START_ARRAY:
            case START_OBJECT:
                p.skipChildren();
                result.anomaly("values_of_unexpected_type");
                return false;
            default:
                // NaN, Infinity, fractions, booleans, null
                result.anomaly("values_of_unexpected_type");
                return false;
        }
    }

    /** The value of the last {@link #integerText} or {@link #unsigned} call that returned true. */
    long number() {
        return number;
    }

    /** An integer above 2^63 as written: kept as its unsigned bit pattern when it fits in 64 bits. */
    boolean unsigned(String text) {
        try {
            unsigned(Long.parseUnsignedLong(text));
            return true;
        } catch (NumberFormatException e) {
            result.anomaly("integers_out_of_range_ignored");
            return false;
        }
    }

    /** An integer above 2^63, given as its unsigned bit pattern: kept as that ({@link #number()}). */
    void unsigned(long bits) {
        number = bits;
        result.anomaly("ids_above_2^63_kept_as_unsigned");
    }

    /** Ids written as strings: {@code "25738"}, and 2021's GPU tids {@code "stream 7"}. */
    boolean integerText(String text) {
        String digits = text.startsWith("stream ") ? text.substring(7).trim() : text.trim();
        if (digits.isEmpty()) {
            return false;
        }
        try {
            number = Long.parseLong(digits);
            return true;
        } catch (NumberFormatException e) {
            return !digits.startsWith("-") && digits.chars().allMatch(Character::isDigit) && unsigned(digits);
        }
    }

    private long time(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_STRING) {
            long ns = DecimalTime.microsToNanos(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
            if (ns == DecimalTime.INVALID) {
                result.anomaly("timestamps_not_finite_ignored");
            }
            return ns;
        }
        p.skipChildren();
        result.anomaly("timestamps_not_finite_ignored");
        return DecimalTime.INVALID;
    }

    private boolean triple(JsonParser p, JsonToken t, int[] into) throws IOException {
        if (t != JsonToken.START_ARRAY) {
            p.skipChildren();
            return false;
        }
        int n = 0;
        int integers = 0;
        JsonToken v;
        while ((v = p.nextToken()) != JsonToken.END_ARRAY) {
            if (n < 3 && integer(p, v)) {
                into[n] = (int) number;
                integers++;
            } else {
                // A fourth entry that is an array or object is skipped whole (a no-op for any other value).
                p.skipChildren();
            }
            n++;
        }
        // Three integers: with any other entry the holder would keep an earlier event's value there.
        return n == 3 && integers == 3;
    }

    private String text(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) {
            return mapper.readTree(p).toString();
        }
        return t == JsonToken.VALUE_NULL ? null : p.getText();
    }

    private Long boxedLong(JsonParser p, JsonToken t) throws IOException {
        return integer(p, t) ? number : null;
    }

    private Integer boxedInt(JsonParser p, JsonToken t) throws IOException {
        return integer(p, t) ? (int) number : null;
    }

    private String unsignedText(JsonParser p, JsonToken t) throws IOException {
        return integer(p, t) ? Long.toUnsignedString(number) : null;
    }
}
