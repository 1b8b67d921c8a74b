package dev.steptrace.ingest.kineto;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;

/**
 * Streams one Kineto (torch.profiler) Chrome-trace JSON document into a {@link TraceEventSink}
 * with Jackson's token stream: never a tree of the whole file, any top-level key order, every
 * timestamp era, string or numeric pid/tid, legacy 2021 categories.
 *
 * <p>Damage does not stop the read at the first bad byte. On a parse error inside the event list
 * the reader first tries to repair the event (Kineto before 2026-07 did not escape quotes in names),
 * then skips to the next event; a cut (end of input, broken gzip) ends the read. Every complete event
 * before the damage has already gone to the sink. {@link ReadResult} says what happened and where.
 */
public final class KinetoReader {
    private static final byte[] RESUME_OBJECT = "{\"traceEvents\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESUME_ARRAY = "[".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_RECOVERIES = 1000;
    private static final int MAX_STRING = 16 << 20;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(MAX_STRING).build())
            .build();
    private static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);

    /** Names for the per-phase counts of dropped events, built once instead of per event. */
    private static final String[] PHASE_NAMES = new String[128];

    static {
        for (int c = 0; c < PHASE_NAMES.length; c++) {
            PHASE_NAMES[c] = c == 0 ? "ph:(none)" : "ph:" + (char) c;
        }
    }

    private final boolean keepPythonFunctions;

    public KinetoReader(boolean keepPythonFunctions) {
        this.keepPythonFunctions = keepPythonFunctions;
    }

    /** The factory configured for Kineto's quirks; the benchmark tokenizes with the same settings. */
    public static JsonFactory jsonFactory() {
        return FACTORY;
    }

    /**
     * Reads one document.
     *
     * @throws NotATraceException when the bytes are not a Kineto trace (not JSON, no trace keys)
     * @throws IOException when reading the file itself fails
     */
    public ReadResult read(InputStream decompressed, NameDictionary names, TraceEventSink sink) throws IOException {
        return new Run(new RecordingInput(decompressed), names, sink).read();
    }

    /** State of one read; a new parser is started on the same input after each recovery. */
    private final class Run {
        private final RecordingInput input;
        private final NameDictionary names;
        private final TraceEventSink sink;
        private final EventFields fields;
        private final TraceEvent event = new TraceEvent();
        private final ReadResult result = new ReadResult();

        private long offsetDelta;
        private boolean sawTraceEvents;
        /** A Kineto header key: a damaged file that has one is a trace even if its event list was never reached. */
        private boolean sawTraceKey;
        private boolean rootIsArray;
        private boolean inEvents;
        private boolean inEvent;
        private long eventStart;

        Run(RecordingInput input, NameDictionary names, TraceEventSink sink) {
            this.input = input;
            this.names = names;
            this.sink = sink;
            this.fields = new EventFields(names, result, MAPPER, keepPythonFunctions);
        }

        ReadResult read() throws IOException {
            // Parsers are created inside the try: creating one reads the first bytes (to detect the
            // encoding), and a gzip broken there must end as damage, not escape as a read error.
            InputStream source = input;
            int recoveries = 0;
            while (true) {
                try {
                    readDocument(FACTORY.createParser(source));
                    break;
                } catch (RecordingInput.DamagedInputException e) {
                    result.markDamaged(e.offset, "compressed stream broken (" + e.getMessage() + ")");
                    break;
                } catch (JsonEOFException e) {
                    result.markDamaged(input.bytesRead(), "ends before the JSON is complete (truncated)");
                    break;
                } catch (JsonProcessingException e) {
                    if (input.endReturned()) {
                        // Out of input inside a value read as a tree: databind reports that as a
                        // mismatch at the value's start, not as a JsonEOFException at the end.
                        result.markDamaged(input.bytesRead(), "ends before the JSON is complete (truncated)");
                        break;
                    }
                    long errorOffset = absoluteOffset(e.getLocation());
                    if (!inEvents || ++recoveries > MAX_RECOVERIES) {
                        requireTrace(e, errorOffset);
                        result.markDamaged(errorOffset, "invalid JSON: " + e.getOriginalMessage());
                        break;
                    }
                    long resumeAt;
                    try {
                        resumeAt = recover(errorOffset, e.getOriginalMessage());
                    } catch (RecordingInput.DamagedInputException broken) {
                        result.markDamaged(broken.offset, "compressed stream broken (" + broken.getMessage() + ")");
                        break;
                    }
                    if (resumeAt < 0) {
                        break;
                    }
                    input.seek(resumeAt);
                    byte[] prefix = rootIsArray ? RESUME_ARRAY : RESUME_OBJECT;
                    source = new SequenceInputStream(new ByteArrayInputStream(prefix), input);
                    offsetDelta = resumeAt - prefix.length;
                    inEvent = false;
                }
            }
            if (!sawTraceEvents && !(result.partial() && sawTraceKey)) {
                throw new NotATraceException(result.partial()
                        ? "not a trace: " + result.damageReason() : "JSON without \"traceEvents\"", -1);
            }
            result.jsonBytes = input.bytesRead();
            return result;
        }

        private void requireTrace(JsonProcessingException e, long errorOffset) throws NotATraceException {
            if (!sawTraceEvents && !sawTraceKey) {
                throw new NotATraceException("not a JSON trace: " + e.getOriginalMessage(), errorOffset);
            }
        }

        private long absoluteOffset(JsonLocation location) {
            if (location == null || location.getByteOffset() < 0) {
                return input.position();
            }
            return Math.max(0, offsetDelta + location.getByteOffset());
        }

        private void readDocument(JsonParser p) throws IOException {
            JsonToken root = p.nextToken();
            if (root == JsonToken.START_ARRAY) {
                // Chrome's "JSON Array Format": the document is the event list itself.
                rootIsArray = true;
                sawTraceEvents = true;
                readEvents(p);
                return;
            }
            if (root != JsonToken.START_OBJECT) {
                throw new NotATraceException(root == null ? "empty file" : "JSON that is not an object or array", 0);
            }
            String key;
            while ((key = p.nextFieldName()) != null) {
                JsonToken value = p.nextToken();
                switch (key) {
                    case "traceEvents":
                        sawTraceEvents = true;
                        if (value == JsonToken.START_ARRAY) {
                            readEvents(p);
                        } else {
                            p.skipChildren();
                        }
                        break;
                    case "baseTimeNanoseconds":
                        sawTraceKey = true;
                        if (value == JsonToken.VALUE_NUMBER_INT
                                && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                            sink.baseTimeNanos(p.getLongValue(), !result.eventsRead());
                        } else if (value == JsonToken.VALUE_NUMBER_INT) {
                            // getLongValue() would throw, and that parse error would end the read.
                            result.anomaly("integers_out_of_range_ignored");
                        }
                        break;
                    case "deviceProperties":
                        sawTraceKey = true;
                        readDevices(p, value);
                        break;
                    case "distributedInfo":
                        sawTraceKey = true;
                        readDistributedInfo(p);
                        break;
                    default:
                        if ("schemaVersion".equals(key) || "displayTimeUnit".equals(key)) {
                            sawTraceKey = true;
                        }
                        readMetadata(p, key);
                }
            }
        }

        private void readEvents(JsonParser p) throws IOException {
            inEvents = true;
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t != JsonToken.START_OBJECT) {
                    p.skipChildren();
                    result.anomaly("non_object_events");
                    continue;
                }
                eventStart = offsetDelta + p.currentTokenLocation().getByteOffset();
                input.keepFrom(eventStart);
                inEvent = true;
                fields.read(p, event);
                inEvent = false;
                dispatch(event);
            }
            inEvents = false;
        }

        private void dispatch(TraceEvent e) {
            result.eventsSeen++;
            switch (e.ph) {
                case 'X':
                    dispatchComplete(e);
                    break;
                case 'M':
                    dispatchMetadata(e);
                    break;
                case 's':
                case 'f':
                case 't':
                    result.dropped("flow");
                    break;
                default:
                    result.dropped(PHASE_NAMES[e.ph & 0x7F]);
            }
        }

        private void dispatchComplete(TraceEvent e) {
            if (e.kind == EventKind.OTHER || (e.kind == EventKind.PYTHON_FUNCTION && !keepPythonFunctions)) {
                result.dropped(e.categoryName);
                return;
            }
            if (!e.hasTs) {
                result.anomaly("events_without_valid_ts");
                result.dropped(e.categoryName);
                return;
            }
            if (!e.has(TraceEvent.DUR)) {
                result.anomaly("events_without_valid_dur");
                e.durNs = 0;
            } else if (e.durNs < 0) {
                result.anomaly("negative_durations_clamped");
                e.durNs = 0;
            }
            result.countKept(e.kind);
            sink.event(e);
        }

        private void dispatchMetadata(TraceEvent e) {
            if (e.nameId < 0 || !e.has(TraceEvent.PID)) {
                result.dropped("ph:M");
                return;
            }
            String what = names.name(e.nameId);
            Long tid = what.startsWith("thread_") && e.has(TraceEvent.TID) ? e.tid : null;
            Long sortIndex = e.has(TraceEvent.SORT_INDEX) ? e.sortIndex : null;
            sink.track(e.pid, tid, what, e.metaValue, sortIndex);
        }

        private void readDevices(JsonParser p, JsonToken value) throws IOException {
            if (value != JsonToken.START_ARRAY) {
                p.skipChildren();
                return;
            }
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
                if (t != JsonToken.START_OBJECT) {
                    // Stopping here would leave the parser inside the array and lose the rest of the file.
                    p.skipChildren();
                    continue;
                }
                JsonNode d = MAPPER.readTree(p);
                if (d.path("id").canConvertToInt()) {
                    sink.device(new TraceEventSink.DeviceInfo(d.path("id").asInt(), textOrNull(d, "name"),
                            longOrNull(d, "totalGlobalMem"), intOrNull(d, "computeMajor"),
                            intOrNull(d, "computeMinor"), intOrNull(d, "numSms"), d.toString()));
                }
            }
        }

        private void readDistributedInfo(JsonParser p) throws IOException {
            JsonNode info = MAPPER.readTree(p);
            if (info == null || !info.isObject()) {
                return;
            }
            sink.distributedInfo(info.toString(), intOrNull(info, "rank"), intOrNull(info, "world_size"));
        }

        private void readMetadata(JsonParser p, String key) throws IOException {
            JsonNode value = MAPPER.readTree(p);
            String json = value == null ? "null" : value.toString();
            if (json.length() > ReadResult.MAX_METADATA_CHARS) {
                json = "\"(" + json.length() + " characters not kept)\"";
            }
            sink.metadata(key, json);
        }

        /**
         * After a parse error inside the event list: repair the event if it only has unescaped quotes,
         * else skip to the next event. Returns where the next parser starts, or -1 to stop.
         */
        private long recover(long errorOffset, String message) throws IOException {
            if (inEvent) {
                Recovery.Repaired repaired = Recovery.repairQuotes(input, eventStart);
                if (repaired != null && parseRepaired(repaired.json())) {
                    result.anomaly("events_with_unescaped_quotes_repaired");
                    return Recovery.afterSeparator(input, repaired.endOffset());
                }
            }
            long damageAt = inEvent ? eventStart : errorOffset;
            long from = Math.max(errorOffset, inEvent ? eventStart + 1 : errorOffset);
            input.seek(Math.max(input.keptFrom(), Math.min(from, input.bytesRead())));
            long next = Recovery.nextEventStart(input);
            result.skipped(damageAt, next < 0 ? input.bytesRead() : next, "invalid JSON: " + message);
            return next;
        }

        private boolean parseRepaired(byte[] json) throws IOException {
            try (JsonParser p = FACTORY.createParser(json)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    return false;
                }
                fields.read(p, event);
            } catch (JsonProcessingException e) {
                return false;
            }
            dispatch(event);
            return true;
        }
    }

    private static String textOrNull(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static Long longOrNull(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.canConvertToLong() ? v.asLong() : null;
    }

    private static Integer intOrNull(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.canConvertToInt() ? v.asInt() : null;
    }
}
