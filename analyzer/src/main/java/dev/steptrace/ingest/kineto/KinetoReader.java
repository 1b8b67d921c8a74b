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
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import dev.steptrace.ingest.InputDamage;
import dev.steptrace.ingest.NotATraceException;
import dev.steptrace.ingest.TimeLimits;

/**
 * Streams one Kineto (torch.profiler) Chrome-trace JSON document into a {@link TraceEventSink}
 * with Jackson's token stream: never a tree of the whole file, any top-level key order, every
 * timestamp era, string or numeric pid/tid, legacy 2021 categories. The event list, nearly all of
 * the bytes, is read by {@link EventScanner} below Jackson; Jackson reads the rest of the document,
 * and the list's entries the scanner leaves to it (damage among them): each time, a new parser
 * starts where the scanner stopped, as after a recovery.
 *
 * <p>Damage does not stop the read at the first bad byte. On a parse error inside the event list
 * the reader first tries to repair the event (Kineto before 2026-07 did not escape quotes in names),
 * then skips to the next event; a cut (end of input, broken gzip) ends the read. Every complete event
 * before the damage has already gone to the sink. {@link ReadResult} says what happened and where.
 */
public final class KinetoReader {
    /*
     * Every resume prefix is at least 4 bytes long: a new parser first reads 4 bytes to detect the
     * encoding, and with a shorter prefix that read would take bytes from the file, run into its end
     * and make damage at the last bytes look like a cut. The padding is white space before the
     * document, so the parser's offsets after the prefix still map onto the file's.
     */
    private static final byte[] RESUME_OBJECT = "{\"traceEvents\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESUME_ARRAY = "   [".getBytes(StandardCharsets.US_ASCII);
    /**
     * The same, for a list entry that ends just before where Jackson starts: a stand-in entry, then the
     * separator is read from the file (the space keeps the stand-in from running into a digit there).
     */
    private static final byte[] RESUME_OBJECT_AFTER_ENTRY = "{\"traceEvents\":[0 ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESUME_ARRAY_AFTER_ENTRY = " [0 ".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_RECOVERIES = 1000;
    /** The names of the {@code ph:"M"} events the reader keeps (process and thread names, labels, order). */
    private static final List<String> METADATA_NAMES = List.of("process_name", "thread_name", "process_labels",
            "process_sort_index", "thread_sort_index");
    /** The longest string (in characters) or key (in UTF-8 bytes) Jackson reads: a longer one is damage. */
    static final int MAX_STRING = 16 << 20;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(MAX_STRING).maxNameLength(MAX_STRING)
                    .build())
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
    private final boolean scan;
    private final int scanThreads;
    private final int chunkBytes;
    private long bytesScannedInParallel;

    public KinetoReader(boolean keepPythonFunctions) {
        this(keepPythonFunctions, 1);
    }

    /** With {@code scanThreads} over 1, the event list is scanned on that many threads ({@link ParallelScan}). */
    public KinetoReader(boolean keepPythonFunctions, int scanThreads) {
        this(keepPythonFunctions, true, scanThreads, ParallelScan.CHUNK_BYTES);
    }

    /** With {@code scan} false, Jackson reads the event list too: the reference the scanner is tested against. */
    KinetoReader(boolean keepPythonFunctions, boolean scan) {
        this(keepPythonFunctions, scan, 1, ParallelScan.CHUNK_BYTES);
    }

    KinetoReader(boolean keepPythonFunctions, boolean scan, int scanThreads, int chunkBytes) {
        this.keepPythonFunctions = keepPythonFunctions;
        this.scan = scan;
        this.scanThreads = scanThreads;
        this.chunkBytes = chunkBytes;
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
        Run run = new Run(new RecordingInput(decompressed), names, sink);
        try {
            return run.read();
        } finally {
            if (run.parallel != null) {
                run.parallel.close();
                bytesScannedInParallel += run.parallel.bytesScanned();
            }
        }
    }

    /**
     * Bytes of the event lists that scan threads were given in this reader's reads so far, chunks dropped
     * after a stop included: the work done beside the reader's thread, against the bytes read.
     */
    public long bytesScannedInParallel() {
        return bytesScannedInParallel;
    }

    /** State of one read; a new parser is started on the same input after each recovery. */
    private final class Run {
        private final RecordingInput input;
        private final NameDictionary names;
        private final TraceEventSink sink;
        private final EventFields fields;
        private final EventScanner scanner;
        /** The scanner's work on several threads, or null. */
        private final ParallelScan parallel;
        private final TraceEvent event = new TraceEvent();
        private final ReadResult result = new ReadResult();

        private long offsetDelta;
        private boolean sawTraceEvents;
        /** A Kineto header key: a damaged file that has one is a trace even if its event list was never reached. */
        private boolean sawTraceKey;
        private boolean rootIsArray;
        /** The next parser starts with the synthetic {@link #RESUME_OBJECT} after a recovery. */
        private boolean resuming;
        private boolean inEvents;
        /** Jackson reads the next list entry (the scanner stopped before it), then hands back. */
        private boolean jacksonNext;
        /** The resume prefix ends with a stand-in entry ({@link #RESUME_ARRAY_AFTER_ENTRY}): not an event. */
        private boolean standInEntry;
        private boolean inEvent;
        private long eventStart;
        /** First and last offsets where the JSON was found broken (repaired or skipped), or -1. */
        private long firstTrouble = -1;
        private long lastTrouble = -1;
        /** The input has returned its end (or its damage): nothing more can be learned from it. */
        private boolean inputEnded;
        /** The base added to the times as they are read (0 until known), and the range of kept starts. */
        private long baseNs;
        private long lateBaseNs = -1;
        private long minTs = Long.MAX_VALUE;
        private long maxTs = Long.MIN_VALUE;

        Run(RecordingInput input, NameDictionary names, TraceEventSink sink) {
            this.input = input;
            this.names = names;
            // Metadata events come last in Kineto's files: their names must still have their text by then.
            for (String m : METADATA_NAMES) {
                names.idOf(m);
            }
            this.sink = sink;
            this.fields = new EventFields(names, result, MAPPER, keepPythonFunctions);
            this.scanner = scan ? new EventScanner(input, names, fields, result, keepPythonFunctions, FACTORY) : null;
            this.parallel = scan && scanThreads > 1 ? new ParallelScan(input, names, result, keepPythonFunctions, FACTORY,
                    MAPPER, scanThreads, chunkBytes) : null;
        }

        ReadResult read() throws IOException {
            // Parsers are created inside the try: creating one reads the first bytes (to detect the
            // encoding), and a gzip broken there must end as damage, not escape as a read error.
            InputStream source = input;
            int recoveries = 0;
            while (true) {
                try {
                    JsonParser p = FACTORY.createParser(source);
                    readDocument(p);
                    readEnd(p);
                    break;
                } catch (ScannerStopped s) {
                    // Jackson goes on where the scanner stopped, in the same place in the list.
                    input.seek(s.at);
                    byte[] prefix = s.afterEntry ? (rootIsArray ? RESUME_ARRAY_AFTER_ENTRY : RESUME_OBJECT_AFTER_ENTRY)
                            : (rootIsArray ? RESUME_ARRAY : RESUME_OBJECT);
                    source = new SequenceInputStream(new ByteArrayInputStream(prefix), input);
                    offsetDelta = s.at - prefix.length;
                    inEvent = false;
                    resuming = !rootIsArray;
                    standInEntry = s.afterEntry;
                    jacksonNext = true;
                } catch (RecordingInput.DamagedInputException e) {
                    inputDamaged(e);
                    break;
                } catch (JsonEOFException e) {
                    truncated();
                    break;
                } catch (JsonProcessingException e) {
                    if (input.endReturned()) {
                        // Out of input inside a value read as a tree: databind reports that as a
                        // mismatch at the value's start, not as a JsonEOFException at the end.
                        truncated();
                        break;
                    }
                    long errorOffset = absoluteOffset(e.getLocation());
                    if (!inEvents || ++recoveries > MAX_RECOVERIES) {
                        requireTrace(e, errorOffset);
                        trouble(errorOffset);
                        result.markDamaged(errorOffset, "invalid JSON: " + e.getOriginalMessage());
                        break;
                    }
                    long resumeAt;
                    try {
                        resumeAt = recover(errorOffset, e.getOriginalMessage());
                    } catch (RecordingInput.DamagedInputException broken) {
                        inputDamaged(broken);
                        break;
                    }
                    if (resumeAt < 0) {
                        inputEnded = true;
                        break;
                    }
                    input.seek(resumeAt);
                    byte[] prefix = rootIsArray ? RESUME_ARRAY : RESUME_OBJECT;
                    source = new SequenceInputStream(new ByteArrayInputStream(prefix), input);
                    offsetDelta = resumeAt - prefix.length;
                    inEvent = false;
                    resuming = !rootIsArray;
                }
            }
            if (!sawTraceEvents && !(result.partial() && sawTraceKey)) {
                throw new NotATraceException(result.partial()
                        ? "not a trace: " + result.damageReason() : "JSON without \"traceEvents\"", -1);
            }
            result.jsonBytes = input.bytesRead();
            addLateBase();
            readRestAfterTrouble();
            return result;
        }

        private void truncated() {
            inputEnded = true;
            result.markDamaged(input.bytesRead(), "ends before the JSON is complete (truncated)");
        }

        /**
         * The decompressed input ended early. Damage in a gzip member whose JSON was already found
         * broken (repaired or skipped) means the breaks were made by the corruption, and events kept
         * after them may be invented: the file is read again up to the first break
         * ({@link ReadResult#rereadUpTo()}). Without such breaks the events read from the member are
         * kept and the file says its content may be wrong.
         */
        private void inputDamaged(RecordingInput.DamagedInputException e) throws IOException {
            inputEnded = true;
            if (!(e.getCause() instanceof InputDamage damage)) {
                // Not the file's content but its reading (an I/O error, an interrupt): the file fails and is
                // read again by the next ingest, rather than kept in part under the fingerprint of it whole.
                throw (IOException) e.getCause();
            }
            long suspect = damage.suspectFrom();
            if (suspect < 0) {
                result.markDamaged(e.offset, damage.getMessage());
                return;
            }
            if (lastTrouble >= suspect) {
                result.rereadUpTo(firstTrouble >= suspect ? firstTrouble : suspect, InputDamage.CONTENT_MAY_BE_WRONG
                        + damage.getMessage() + ", and the JSON it holds breaks (any value kept from byte " + suspect
                        + " of the decompressed JSON on may be wrong; nothing is kept from where the JSON breaks)");
            }
            result.markSuspect(e.offset, InputDamage.CONTENT_MAY_BE_WRONG + damage.getMessage() + " (its events from byte "
                    + suspect + " of the decompressed JSON on were kept, but any value in them may be wrong; nothing"
                    + " after it is read), found");
        }

        /** JSON damage (repaired or not) at {@code offset}. */
        private void trouble(long offset) {
            if (firstTrouble < 0) {
                firstTrouble = offset;
            }
            lastTrouble = Math.max(lastTrouble, offset);
        }

        /**
         * After JSON damage, when the read stopped before the end of the input: the rest is read (not
         * parsed) to learn whether the damage came from corrupt compressed data, whose checks are at the
         * end of each gzip member.
         */
        private void readRestAfterTrouble() throws IOException {
            if (firstTrouble < 0 || inputEnded) {
                return;
            }
            byte[] skip = new byte[1 << 16];
            try {
                input.seek(input.bytesRead());
                while (input.read(skip, 0, skip.length) >= 0) {
                    input.keepFrom(input.position());
                }
            } catch (RecordingInput.DamagedInputException e) {
                inputDamaged(e);
            }
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
                        if (resuming) {
                            // The list the reader was in when it recovered from damage, not a second one.
                            resuming = false;
                            readEvents(p);
                        } else if (sawTraceEvents) {
                            // JSON leaves a repeated key undefined; reading both lists would count events twice.
                            result.markDamaged(absoluteOffset(p.currentTokenLocation()),
                                    "a second \"traceEvents\" (not read: a trace has one event list)");
                            p.skipChildren();
                        } else if (value == JsonToken.START_ARRAY) {
                            sawTraceEvents = true;
                            readEvents(p);
                        } else {
                            throw new NotATraceException("\"traceEvents\" is " + describe(value) + ", not a list",
                                    absoluteOffset(p.currentTokenLocation()));
                        }
                        break;
                    case "baseTimeNanoseconds":
                        sawTraceKey = true;
                        if (value == JsonToken.VALUE_NUMBER_INT
                                && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                            baseTime(p.getLongValue());
                        } else if (value == JsonToken.VALUE_NUMBER_INT) {
                            // getLongValue() would throw, and that parse error would end the read.
                            result.anomaly("integers_out_of_range_ignored");
                        } else if (value == JsonToken.VALUE_NUMBER_FLOAT || value == JsonToken.VALUE_STRING) {
                            baseTimeFromText(p.getText());
                        } else {
                            result.anomaly("base_time_unreadable_ignored");
                            p.skipChildren();
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

        /**
         * After the document: nothing but white space may follow. A second document or other bytes
         * are not read, and the file says so.
         */
        private void readEnd(JsonParser p) throws IOException {
            long end = absoluteOffset(p.currentLocation());
            try {
                if (p.nextToken() == null) {
                    inputEnded = true;
                    return;
                }
            } catch (JsonProcessingException e) {
                // Not JSON: reported as content after the document all the same.
            }
            result.markDamaged(end, "content after the end of the JSON document (not read)");
        }

        private void readEvents(JsonParser p) throws IOException {
            inEvents = true;
            boolean afterEntry = false;
            JsonToken t;
            while (true) {
                if (scanner != null && !jacksonNext) {
                    scan(p, afterEntry);
                }
                jacksonNext = false;
                if ((t = p.nextToken()) == JsonToken.END_ARRAY) {
                    break;
                }
                afterEntry = true;
                if (standInEntry) {
                    standInEntry = false;
                    jacksonNext = true;
                    continue;
                }
                if (t != JsonToken.START_OBJECT) {
                    p.skipChildren();
                    // A string is read to its end only when asked: the scanner goes on after its end.
                    p.finishToken();
                    result.anomaly("non_object_events");
                    continue;
                }
                eventStart = offsetDelta + p.currentTokenLocation().getByteOffset();
                input.keepFrom(eventStart);
                inEvent = true;
                // An event that damage cuts short is not kept: nor are the anomalies found in it, as the
                // scanner forgets them (ReadResult.hold).
                result.hold();
                boolean whole = false;
                try {
                    fields.read(p, event);
                    whole = true;
                } finally {
                    result.release(whole);
                }
                inEvent = false;
                dispatch(event);
            }
            inEvents = false;
        }

        /**
         * The scanner reads the list from where the parser stands, then Jackson goes on where it
         * stopped ({@link ScannerStopped}). Not when the bytes there are no longer kept (a header over
         * 64 MB) or the parser does not count bytes (a UTF-16 file): Jackson reads on.
         */
        private void scan(JsonParser p, boolean afterEntry) throws IOException {
            long parserOffset = p.currentLocation().getByteOffset();
            long at = offsetDelta + parserOffset;
            if (parserOffset < 0 || at < input.keptFrom() || at > input.bytesRead()) {
                return;
            }
            long parallelFrom = parallel == null ? Long.MAX_VALUE : parallel.worthScanningFrom();
            if (at >= parallelFrom) {
                parallel.scan(at, afterEntry, this::dispatched);
                if (parallel.damage() != null) {
                    throw parallel.damage();
                }
                throw new ScannerStopped(parallel.stoppedAt(), parallel.stoppedAfterValue());
            }
            if (parallel != null) {
                // Stops came often: this thread scans on, up to where the scan threads are worth it again.
                long from = parallelFrom;
                scanner.scan(at, afterEntry, event, e -> {
                    dispatch(e);
                    return scanner.position() < from ? e : null;
                });
                throw new ScannerStopped(scanner.stoppedAt(), scanner.stoppedAfterValue());
            }
            scanner.scan(at, afterEntry, event, this::dispatched);
            throw new ScannerStopped(scanner.stoppedAt(), scanner.stoppedAfterValue());
        }

        /** Dispatches a scanned event; the scanner reads the next one into the same holder. */
        private TraceEvent dispatched(TraceEvent e) {
            dispatch(e);
            return e;
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
            if (e.kind == EventKind.OTHER || (e.kind == EventKind.PYTHON_FUNCTION && !keepPythonFunctions && e.nameId < 0)) {
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
            if (!TimeLimits.fits(baseNs, e.tsNs, e.durNs)) {
                result.anomaly("events_with_times_out_of_range_dropped");
                result.dropped(e.categoryName);
                return;
            }
            minTs = Math.min(minTs, e.tsNs);
            maxTs = Math.max(maxTs, e.tsNs);
            result.countKept(e.kind);
            sink.event(e);
        }

        /**
         * {@code baseTimeNanoseconds}: added to every time when it is known before the events. Builds
         * before 2025-03 wrote it after them: it is then added at the end ({@link #addLateBase}).
         */
        private void baseTime(long base) {
            if (!TimeLimits.baseFits(base)) {
                result.anomaly("base_time_out_of_range_ignored");
            } else if (!result.eventsRead()) {
                baseNs = base;
                sink.baseTimeNanos(base, true);
            } else {
                lateBaseNs = base;
            }
        }

        /**
         * A base written as a float or a string ({@code 1.790857026e+18}, as jq and other tools rewrite it), read
         * from its text exactly, never through a double (whose 53 bits would move it by up to 256 ns), and
         * counted: the tool that rewrote it may have rounded it before. Without it every time would be relative
         * to the trace's start, and the ranks of one run would not be found to be one.
         */
        private void baseTimeFromText(String text) {
            long base;
            try {
                base = new BigDecimal(text.strip()).longValueExact();
            } catch (NumberFormatException | ArithmeticException e) {
                result.anomaly("base_time_unreadable_ignored");
                return;
            }
            result.anomaly("base_time_not_an_integer");
            baseTime(base);
        }

        /** A base that came after the events is added when every kept time still fits with it, else ignored. */
        private void addLateBase() {
            if (lateBaseNs < 0) {
                return;
            }
            if (minTs > maxTs || TimeLimits.fits(lateBaseNs, minTs, 0) && TimeLimits.fits(lateBaseNs, maxTs, 0)) {
                sink.baseTimeNanos(lateBaseNs, false);
            } else {
                result.anomaly("base_time_out_of_range_ignored");
            }
        }

        private void dispatchMetadata(TraceEvent e) {
            if (e.nameId < 0 || !e.has(TraceEvent.PID)) {
                result.dropped("ph:M");
                return;
            }
            String what = names.name(e.nameId);
            if (what == null) {
                // Not a name the metadata events use (those are kept, see Run): nothing to store.
                result.dropped("ph:M");
                return;
            }
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
            trouble(inEvent ? eventStart : errorOffset);
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

    /** Unwinds the parser that stood where the scanner started: a new one starts where it stopped. */
    private static final class ScannerStopped extends RuntimeException {
        final long at;
        final boolean afterEntry;

        ScannerStopped(long at, boolean afterEntry) {
            super(null, null, false, false);
            this.at = at;
            this.afterEntry = afterEntry;
        }
    }

    private static String describe(JsonToken value) {
        switch (value) {
            case START_OBJECT:
                return "an object";
            case VALUE_STRING:
                return "a string";
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return "a number";
            case VALUE_NULL:
                return "null";
            default:
                return "a boolean";
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
