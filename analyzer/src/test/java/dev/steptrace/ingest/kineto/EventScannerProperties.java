package dev.steptrace.ingest.kineto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.steptrace.ingest.NotATraceException;
import dev.steptrace.testing.TestData;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The byte scanner ({@link EventScanner}) against the reader without it (Jackson's tokens, the
 * reader every damage and era test was written for): on generated traces that use every form JSON
 * allows where the scanner has a fast path (key order, white space, escapes, unicode, every number
 * form, trailing commas, duplicate keys, values of the wrong type) and the shapes it leaves to
 * Jackson, whole and damaged, both must keep the same events with the same values and report the
 * same damage, anomalies and counts. The expectations come from the other reader, not from the scanner.
 * A tree parse of each generated event (Jackson's tree model) also checks the kept names and times.
 */
class EventScannerProperties {
    private static final ObjectMapper TREE = JsonMapper.builder().enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
    private static final String[] CATEGORIES = {"kernel", "Kernel", "cpu_op", "cuda_runtime", "gpu_memcpy",
            "user_annotation", "gpu_user_annotation", "python_function", "ac2g", "Trace", "cuda_driver", "Memset"};
    private static final String[] ARG_KEYS = {"External id", "external id", "correlation", "device", "stream",
            "bytes", "cbid", "graph id", "graph node id", "grid", "block", "name", "labels", "sort_index",
            "Collective name", "dtype", "In msg nelems", "Out msg nelems", "Group size", "Process Group Name",
            "Process Group ID", "Process Group Description", "Process Group Ranks", "Rank", "Src Rank", "Dst Rank",
            "Seq", "Comms Id", "In split size", "Out split size", "Input Dims", "Input type", "Input Strides",
            "Concrete Inputs", "Is asynchronized op", "other", "Sequence number", "queued"};

    @Property(tries = 400)
    void wholeTracesReadTheSame(@ForAll long seed, @ForAll boolean keepPython) throws IOException {
        Generated g = generate(new Random(seed));
        Outcome scanned = readTheSame(g.json, keepPython, seed, () -> "seed " + seed);
        if (!g.rare) {
            assertTrue(!scanned.partial, () -> scanned + "\n" + g.text());
            assertEquals(g.expectedNamesAndTimes(keepPython), scanned.namesAndTimes, () -> "seed " + seed);
        }
    }

    @Property(tries = 400)
    void damagedTracesReadTheSame(@ForAll long seed, @ForAll @IntRange(min = 0, max = 3) int damage,
                                  @ForAll boolean keepPython) throws IOException {
        Random r = new Random(seed);
        Generated g = generate(r);
        byte[] json = g.json;
        int p = r.nextInt(json.length);
        switch (damage) {
            case 0 -> json = Arrays.copyOf(json, p);
            case 1 -> {
                json = json.clone();
                String bytes = "\"{}[],:\\0x \u00e9";
                json[p] = (byte) bytes.charAt(r.nextInt(bytes.length()));
            }
            case 2 -> {
                byte[] d = new byte[json.length + 1];
                System.arraycopy(json, 0, d, 0, p);
                d[p] = '"';
                System.arraycopy(json, p, d, p + 1, json.length - p);
                json = d;
            }
            default -> {
                json = json.clone();
                json[p] = (byte) r.nextInt(256);
            }
        }
        readTheSame(json, keepPython, seed, () -> "seed " + seed + ", damage " + damage + " at " + p);
    }

    /**
     * A gzip file damaged in its compressed bytes (a flipped byte, a cut), read through the reader's
     * decompression: the damage the decompression reports is met by the scan on several threads (which
     * reads ahead of the events it hands on) where one scanner meets it, with the same events before it; and
     * Jackson's tokens alone (which read the decompressed bytes in other pieces) read it as one scanner does.
     */
    @Property(tries = 150)
    void damagedGzipReadsTheSameOnSeveralThreads(@ForAll long seed, @ForAll boolean cut) throws IOException {
        Random r = new Random(seed);
        Generated g = generate(r);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(bytes)) {
            gz.write(g.json);
        }
        byte[] file = bytes.toByteArray();
        int p = 10 + r.nextInt(file.length - 10);
        if (cut) {
            file = Arrays.copyOf(file, p);
        } else {
            file[p] ^= (byte) (1 + r.nextInt(255));
        }
        Path gz = Files.createTempFile("damaged-", ".json.gz");
        try {
            Files.write(gz, file);
            Outcome scanned;
            try (InputStream in = dev.steptrace.ingest.TraceInput.gunzip(gz)) {
                scanned = read(in, false, true, 1, ParallelScan.CHUNK_BYTES);
            }
            Random chunks = new Random(seed ^ 0x5DEECE66DL);
            int chunk = 48 + chunks.nextInt(Math.max(1, g.json.length / 2));
            Outcome parallel;
            try (InputStream in = dev.steptrace.ingest.TraceInput.gunzip(gz)) {
                parallel = read(in, false, true, 2, chunk);
            }
            assertSameRead(scanned, parallel, g.json.length, () -> "seed " + seed + ", chunks of " + chunk);
            Outcome tokens;
            try (InputStream in = dev.steptrace.ingest.TraceInput.gunzip(gz)) {
                tokens = read(in, false, false, 1, ParallelScan.CHUNK_BYTES);
            }
            assertSameRead(tokens, scanned, g.json.length, () -> "seed " + seed + ", Jackson's tokens");
        } finally {
            Files.delete(gz);
        }
    }

    /**
     * A gzip file cut inside an event that Jackson reads (its keys have escapes) and whose ids are above 2^63: the
     * anomalies of that event, which is not kept, do not count, whoever read up to it (before, the scan on several
     * threads handed the event to Jackson, which counted them, where a single scanner met the damage itself).
     */
    @Example
    void anEventCutByDamageCountsNoAnomaliesOnSeveralThreads() throws IOException {
        damagedGzipReadsTheSameOnSeveralThreads(85, true);
    }

    /**
     * The scan on two or three threads ({@link ParallelScan}), in chunks small enough that a trace has
     * several (and some cut inside an event, or holding no cut at all), from an input that hands out a
     * few bytes per read (so chunks are cut from bytes the reader had buffered and from bytes it had
     * not), reads what one scanner reads: the same events, counts and damage, and every name the same id.
     */
    private static void assertParallelReadsTheSame(byte[] json, boolean keepPython, long seed, Outcome scanned)
            throws IOException {
        Random r = new Random(seed ^ 0x5DEECE66DL);
        int threads = 2 + r.nextInt(2);
        int chunk = 48 + r.nextInt(Math.max(1, json.length / 2));
        int perRead = 1 + r.nextInt(Math.max(1, json.length / 3));
        Outcome parallel = read(new InputStream() {
            private final ByteArrayInputStream in = new ByteArrayInputStream(json);

            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return in.read(b, off, Math.min(len, perRead));
            }
        }, keepPython, true, threads, chunk);
        assertSameRead(scanned, parallel, json.length, () -> "seed " + seed + ", " + threads + " threads, chunks of "
                + chunk + " bytes, " + perRead + " bytes per read\n" + new String(json, StandardCharsets.UTF_8));
    }

    /** The same events, counts, damage and name ids; {@code what} says which read this was. */
    private static void assertSameRead(Outcome scanned, Outcome parallel, int jsonLength, Supplier<String> what) {
        // How far a read that stopped early (at damage it could not skip) had read depends on how far ahead it
        // read, as with any buffer: that count is compared only when the whole input was read.
        boolean stoppedEarly = Math.min(scanned.jsonBytes, parallel.jsonBytes) < jsonLength;
        String expected = stoppedEarly ? scanned.withoutJsonBytes() : scanned.toString();
        String actual = stoppedEarly ? parallel.withoutJsonBytes() : parallel.toString();
        assertEquals(expected, actual, () -> what.get() + ", first difference: " + firstDifference(expected, actual));
        assertEquals(scanned.idsInOrder(), parallel.idsInOrder(), () -> what.get() + ": name ids");
    }

    /**
     * Damage in the last bytes of a list after the scanner stopped: a byte that cannot start a value is
     * invalid JSON at that byte on both paths, not a cut (the resumed parser must not read past it).
     */
    @Test
    void badByteAtTheEndIsInvalidJsonBothWays() throws IOException {
        String event = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2,\"pid\":0,\"tid\":7}";
        for (String text : List.of("[" + event + ",:", "[" + event + ",\n:", "{\"traceEvents\":[" + event + ",:")) {
            byte[] json = text.getBytes(StandardCharsets.UTF_8);
            Outcome scanned = read(json, false, true);
            assertEquals(read(json, false, false).toString(), scanned.toString(), text);
            assertTrue(scanned.toString().contains("at " + (json.length - 1) + " invalid JSON"), scanned::toString);
            assertEquals(1, scanned.events, text);
        }
    }

    /**
     * Shapes a review found read differently, each read by the scanner, by Jackson alone and on several threads:
     * the same events, counts, damage and name ids, and what the shape should give.
     */
    @Test
    void shapesFoundOnReviewReadTheSame() throws IOException {
        String k = "{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":%d,\"dur\":1,\"name\":\"%s\",\"args\":{%s}}";
        // grid and block of three entries, not all integers, after an event with both: no grid, no block (an
        // earlier event's values stood in for the entries that were not integers).
        Outcome grids = readTheSame("[" + String.format(k, 1, "a", "\"grid\":[7,8,9],\"block\":[4,5,6]") + ","
                + String.format(k, 2, "b", "\"grid\":[1,\"x\",3],\"block\":[null,2,3]") + "]");
        assertEquals(2, grids.events);
        String b = grids.toString().lines().filter(l -> l.contains(" name=b ")).findFirst().orElseThrow();
        assertTrue(!b.contains("grid=") && !b.contains("block="), grids::toString);
        assertTrue(grids.toString().contains("grid=[7, 8, 9] block=[4, 5, 6]"), grids::toString);
        // An array or object as a fourth entry of grid: no grid, the event read to its end, the next one too.
        Outcome nested = readTheSame("[" + String.format(k, 1, "a", "\"grid\":[1,2,3,[4,5]]") + ","
                + String.format(k, 2, "b", "\"block\":[1,2,3,{\"x\":[]}]") + "," + String.format(k, 3, "c", "") + "]");
        assertTrue(!nested.partial && nested.events == 3, nested::toString);
        // A literal run on by a letter or digit is damage at that token: no name is made of it before.
        for (String literal : List.of("nullx", "truex", "false0")) {
            Outcome bad = readTheSame("[" + String.format(k, 1, "a", "").replace("\"a\"", literal) + ","
                    + String.format(k, 2, "b", "") + "]");
            assertTrue(bad.partial && !bad.idsInOrder().contains(literal.substring(0, literal.length() - 1)),
                    bad::toString);
        }
        // A key longer than Jackson's default limit on names (50 000): a key as any other.
        Outcome longKey = readTheSame("[" + String.format(k, 1, "a", "\"" + "x".repeat(50_001) + "\":1") + ","
                + String.format(k, 2, "b", "") + "]");
        assertTrue(!longKey.partial && longKey.events == 2, longKey::toString);
        // A string over 16 MiB in an event read whole from the buffer an earlier event of 26 MiB grew (to 64 MiB):
        // damage, as in any event (Jackson's limit on strings).
        String thirteenMiB = "y".repeat(13 << 20);
        Outcome tooLong = readTheSame("[" + String.format(k, 1, "a", "\"labels\":\"" + thirteenMiB + "\",\"dtype\":\""
                + thirteenMiB + "\"") + "," + String.format(k, 2, "z".repeat((16 << 20) + 1), "") + ","
                + String.format(k, 3, "c", "") + "]");
        assertTrue(tooLong.partial && tooLong.toString().contains("String value length"), tooLong::toString);
    }

    /** Reads {@code text} by the scanner, by Jackson alone and on several threads, all alike; the scanner's read. */
    private static Outcome readTheSame(String text) throws IOException {
        byte[] json = text.getBytes(StandardCharsets.UTF_8);
        return readTheSame(json, false, json.length, () -> "a shape found on review");
    }

    /**
     * Reads {@code json} by the scanner, by Jackson alone and on several threads (chosen by {@code seed}), all
     * alike: the same events, counts, damage and name ids; the scanner's read. {@code what} names the input.
     */
    private static Outcome readTheSame(byte[] json, boolean keepPython, long seed, Supplier<String> what)
            throws IOException {
        Outcome scanned = read(json, keepPython, true);
        Outcome tokens = read(json, keepPython, false);
        assertEquals(tokens.toString(), scanned.toString(), () -> what.get() + ", first difference: "
                + firstDifference(tokens.toString(), scanned.toString()) + "\n" + new String(json, StandardCharsets.UTF_8));
        assertEquals(tokens.idsInOrder(), scanned.idsInOrder(), () -> what.get() + ": name ids\n"
                + new String(json, StandardCharsets.UTF_8));
        assertParallelReadsTheSame(json, keepPython, seed, scanned);
        return scanned;
    }

    /** The real traces kept with the tests, read both ways: the same rows, the same counts. */
    @Test
    void smallRealTracesReadTheSame() throws IOException {
        List<Path> traces;
        try (Stream<Path> files = Files.list(TestData.smallTraces())) {
            traces = files.filter(f -> f.toString().endsWith(".json.gz")).sorted().toList();
        }
        assertTrue(traces.size() >= 2, traces::toString);
        for (Path t : traces) {
            byte[] json;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(t))) {
                json = in.readAllBytes();
            }
            Outcome scanned = read(json, false, true);
            assertEquals(read(json, false, false).toString(), scanned.toString(), t::toString);
            assertTrue(scanned.events > 0, t::toString);
            for (int chunk : new int[] {4096, 65536}) {
                Outcome parallel = read(new ByteArrayInputStream(json), false, true, 2, chunk);
                assertEquals(scanned.toString(), parallel.toString(), () -> t + " in chunks of " + chunk
                        + ", first difference: " + firstDifference(scanned.toString(), parallel.toString()));
                assertEquals(scanned.idsInOrder(), parallel.idsInOrder(), () -> t + " in chunks of " + chunk);
            }
        }
    }

    /**
     * A list whose every fourth entry goes to Jackson (a key with an escape): each such stop drops the chunks
     * cut ahead of it (eight of 4 KiB here, 32 KiB), so without a limit the scan threads would be given
     * about 1,000 x 32 KiB for a list of 0.3 MB. Past the second stop they get a stretch only after 256 KiB
     * of progress per stop, and the single scanner reads the rest: the same read, the threads given at
     * most twice the list.
     */
    @Test
    void frequentStopsLeaveTheListToTheSingleScanner() throws IOException {
        StringBuilder text = new StringBuilder("{\"traceEvents\":[");
        for (int i = 0; i < 4000; i++) {
            text.append(i == 0 ? "" : ",\n").append("{\"ph\":\"X\",\"cat\":\"kernel\",")
                    .append(i % 4 == 0 ? "\"na\\u006de\"" : "\"name\"").append(":\"k").append(i % 50)
                    .append("\",\"ts\":").append(i).append(",\"dur\":2,\"pid\":0,\"tid\":7}");
        }
        byte[] json = text.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        Outcome scanned = read(json, false, true);
        assertEquals(4000, scanned.events);
        KinetoReader reader = new KinetoReader(false, true, 2, 4096);
        Outcome parallel = read(reader, new ByteArrayInputStream(json));
        assertSameRead(scanned, parallel, json.length, () -> "a stop every fourth entry");
        assertTrue(reader.bytesScannedInParallel() <= 2L * json.length,
                () -> reader.bytesScannedInParallel() + " bytes given to the scan threads for a list of " + json.length);
    }

    /**
     * Two stops at the start of a long list (keys with an escape in its first two entries): the single scanner
     * reads on only until 256 KiB (eight times the 32 KiB cut ahead), then the scan threads take the rest
     * again, so they are given most of the list; the same read.
     */
    @Test
    void afterEarlyStopsTheScanThreadsTakeOverAgain() throws IOException {
        StringBuilder text = new StringBuilder("{\"traceEvents\":[");
        for (int i = 0; i < 16_000; i++) {
            text.append(i == 0 ? "" : ",\n").append("{\"ph\":\"X\",\"cat\":\"kernel\",")
                    .append(i < 2 ? "\"na\\u006de\"" : "\"name\"").append(":\"k").append(i % 50)
                    .append("\",\"ts\":").append(i).append(",\"dur\":2,\"pid\":0,\"tid\":7}");
        }
        byte[] json = text.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        Outcome scanned = read(json, false, true);
        KinetoReader reader = new KinetoReader(false, true, 2, 4096);
        Outcome parallel = read(reader, new ByteArrayInputStream(json));
        assertSameRead(scanned, parallel, json.length, () -> "two stops at the start");
        assertTrue(reader.bytesScannedInParallel() > json.length / 2,
                () -> reader.bytesScannedInParallel() + " bytes given to the scan threads for a list of " + json.length);
    }

    /**
     * A chunk holds at most one event per 64 of its bytes (64 in a chunk of 4 KiB): a list of 100,000 empty
     * entries (3 bytes each) would otherwise keep about 1,400 events' holders per chunk. Each worker's scan
     * ends at the 64th, as at a stop, so the stops soon leave the list to the single scanner (above): the
     * same read, and the scan threads given well under half of the list.
     */
    @Test
    void tinyEntriesAreHeldAFewPerChunk() throws IOException {
        byte[] json = ("{\"traceEvents\":[" + "{},".repeat(99_999) + "{}]}").getBytes(StandardCharsets.UTF_8);
        Outcome scanned = read(json, false, true);
        KinetoReader reader = new KinetoReader(false, true, 2, 4096);
        Outcome parallel = read(reader, new ByteArrayInputStream(json));
        assertSameRead(scanned, parallel, json.length, () -> "empty entries");
        assertTrue(scanned.toString().contains("seen=100000"), scanned::toString);
        assertTrue(reader.bytesScannedInParallel() < json.length / 2,
                () -> reader.bytesScannedInParallel() + " bytes given to the scan threads for a list of " + json.length);
    }

    /**
     * A read that fails halfway (an I/O error of the disk or the network file system, not damage of the file's
     * content) fails the file, on one thread or several: no part of it is kept as if the file ended there.
     */
    @Test
    void aReadErrorFailsTheFileRatherThanCuttingItShort() throws IOException {
        Path trace;
        try (Stream<Path> files = Files.list(TestData.smallTraces())) {
            trace = files.filter(f -> f.toString().endsWith(".json.gz")).sorted().findFirst().orElseThrow();
        }
        byte[] json;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            json = in.readAllBytes();
        }
        for (int threads : new int[] {1, 2}) {
            InputStream failing = new InputStream() {
                private int pos;

                @Override
                public int read() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    if (pos >= json.length / 2) {
                        throw new IOException("Input/output error");
                    }
                    int n = Math.min(len, json.length / 2 - pos);
                    System.arraycopy(json, pos, b, off, n);
                    pos += n;
                    return n;
                }
            };
            KinetoReader reader = new KinetoReader(false, true, threads, 4096);
            IOException e = assertThrows(IOException.class, () -> reader.read(failing, new NameDictionary(), event -> { }),
                    () -> threads + " thread(s)");
            assertEquals("Input/output error", e.getMessage(), () -> threads + " thread(s)");
        }
    }

    private static String firstDifference(String expected, String actual) {
        String[] e = expected.split("\n");
        String[] a = actual.split("\n");
        for (int i = 0; i < Math.max(e.length, a.length); i++) {
            String el = i < e.length ? e[i] : "(none)";
            String al = i < a.length ? a[i] : "(none)";
            if (!el.equals(al)) {
                return "line " + i + "\nexpected " + el + "\nactual   " + al;
            }
        }
        return "none";
    }

    // ---- reading ----

    /** Everything a read hands to its sink and reports, as text. */
    private static final class Outcome implements TraceEventSink {
        final NameDictionary names = new NameDictionary();
        final StringBuilder log = new StringBuilder();
        final List<String> namesAndTimes = new ArrayList<>();
        boolean partial;
        int events;
        long jsonBytes;

        String withoutJsonBytes() {
            return toString().replaceAll(" json=\\d+ ", " ");
        }

        /** Every name of the dictionary in the order of its id. */
        List<String> idsInOrder() {
            List<String> all = new ArrayList<>();
            for (int id = 0; id < names.size(); id++) {
                all.add(names.name(id));
            }
            return all;
        }

        @Override
        public void event(TraceEvent e) {
            events++;
            String name = e.nameId < 0 ? null : names.name(e.nameId);
            namesAndTimes.add(name + "@" + e.tsNs + "+" + (e.has(TraceEvent.DUR) ? e.durNs : 0));
            log.append("event ").append(e.ph).append(' ').append(e.kind).append(' ').append(e.categoryName)
                    .append(" name=").append(name).append(" present=").append(e.present).append(" ts=").append(e.tsNs);
            long[] optional = {e.pid, e.tid, e.durNs, e.externalId, e.correlation, e.device, e.stream, e.bytes, e.cbid,
                    e.graphId, e.graphNodeId};
            for (int i = 0; i < optional.length; i++) {
                if (e.has(1 << i)) {
                    log.append(' ').append(i).append('=').append(optional[i]);
                }
            }
            if (e.has(TraceEvent.GRID)) {
                log.append(" grid=").append(Arrays.toString(e.grid));
            }
            if (e.has(TraceEvent.BLOCK)) {
                log.append(" block=").append(Arrays.toString(e.block));
            }
            if (e.has(TraceEvent.SORT_INDEX)) {
                log.append(" sort=").append(e.sortIndex);
            }
            log.append(" meta=").append(e.metaValue);
            if (e.hasComm()) {
                TraceEvent.CommArgs c = e.comm();
                log.append(" comm=").append(List.of(String.valueOf(c.collective), String.valueOf(c.dtype),
                        String.valueOf(c.inNelems), String.valueOf(c.outNelems), String.valueOf(c.groupSize),
                        String.valueOf(c.pgName), String.valueOf(c.pgDesc), String.valueOf(c.pgRanks),
                        String.valueOf(c.rank), String.valueOf(c.srcRank), String.valueOf(c.dstRank),
                        String.valueOf(c.seq), String.valueOf(c.commsId), String.valueOf(c.inSplit),
                        String.valueOf(c.outSplit), String.valueOf(c.isAsync)));
            }
            if (e.hasInputs()) {
                TraceEvent.OpInputs in = e.inputs();
                log.append(" inputs=").append(in.dims).append('|').append(in.types).append('|').append(in.strides)
                        .append('|').append(in.concrete);
            }
            log.append('\n');
        }

        @Override
        public void baseTimeNanos(long baseNs, boolean beforeEvents) {
            log.append("base ").append(baseNs).append(' ').append(beforeEvents).append('\n');
        }

        @Override
        public void device(DeviceInfo device) {
            log.append("device ").append(device).append('\n');
        }

        @Override
        public void distributedInfo(String json, Integer rank, Integer worldSize) {
            log.append("distributed ").append(json).append('\n');
        }

        @Override
        public void metadata(String key, String json) {
            log.append("metadata ").append(key).append('=').append(json).append('\n');
        }

        @Override
        public void track(long pid, Long tid, String field, String value, Long sortIndex) {
            log.append("track ").append(pid).append(' ').append(tid).append(' ').append(field).append(' ')
                    .append(value).append(' ').append(sortIndex).append('\n');
        }

        /**
         * The log, with the line and column Jackson's messages give for an enclosing array left out:
         * they count from where the parser started, which after the scanner (as after any recovery)
         * is not the file's start. The byte offsets of the damage are compared.
         */
        @Override
        public String toString() {
            return log.toString().replaceAll("\\[Source: [^\\]]*\\]", "[...]");
        }
    }

    private static Outcome read(byte[] json, boolean keepPython, boolean scan) throws IOException {
        return read(new ByteArrayInputStream(json), keepPython, scan, 1, ParallelScan.CHUNK_BYTES);
    }

    private static Outcome read(InputStream json, boolean keepPython, boolean scan, int threads, int chunkBytes)
            throws IOException {
        return read(new KinetoReader(keepPython, scan, threads, chunkBytes), json);
    }

    private static Outcome read(KinetoReader reader, InputStream json) throws IOException {
        Outcome o = new Outcome();
        try {
            ReadResult r = reader.read(json, o.names, o);
            o.partial = r.partial();
            o.jsonBytes = r.jsonBytes;
            o.log.append("result partial=").append(r.partial()).append(" at ").append(r.damageOffset()).append(' ')
                    .append(r.damageReason()).append(" seen=").append(r.eventsSeen).append(" json=").append(r.jsonBytes)
                    .append(" dropped=").append(r.dropped()).append(" anomalies=").append(r.anomalies())
                    .append(" skipped=").append(r.skippedBytes()).append(" reread=").append(r.rereadUpTo());
            for (EventKind k : EventKind.values()) {
                o.log.append(' ').append(k).append('=').append(r.kept(k));
            }
        } catch (NotATraceException e) {
            o.log.append("not a trace: ").append(e.getMessage());
        }
        return o;
    }

    // ---- generating ----

    /** A generated trace: its bytes, each event's tree, and whether it uses a shape the scanner leaves to Jackson. */
    private static final class Generated {
        byte[] json;
        final List<String> eventTexts = new ArrayList<>();
        /** A shape the scanner leaves to Jackson, or one the tree check below cannot state. */
        boolean rare;
        long base;

        String text() {
            return new String(json, StandardCharsets.UTF_8);
        }

        /** Names and times of the complete events a reader keeps, from a tree parse of each event. */
        List<String> expectedNamesAndTimes(boolean keepPython) throws IOException {
            List<String> out = new ArrayList<>();
            for (String text : eventTexts) {
                JsonNode e = TREE.readTree(text);
                String cat = e.path("cat").asText(null);
                EventKind kind = cat == null ? EventKind.OTHER : EventKind.ofCategory(cat);
                if (!"X".equals(e.path("ph").asText()) || kind == EventKind.OTHER
                        || kind == EventKind.PYTHON_FUNCTION && !keepPython
                                && !(e.path("name").isTextual() && e.path("name").asText().startsWith("nn.Module: "))
                        || e.path("ts").isMissingNode()) {
                    continue;
                }
                long ts = nanos(e.path("ts"));
                long dur = e.path("dur").isMissingNode() ? 0 : Math.max(0, nanos(e.path("dur")));
                // Stored times start at the epoch, before 2^62 ns; durations up to 2^53 ns (docs/schema.md).
                if (base + ts < 0 || base + ts >= 1L << 62 || dur > 1L << 53) {
                    continue;
                }
                out.add(e.path("name").asText(null) + "@" + ts + "+" + dur);
            }
            return out;
        }
    }

    /** Microseconds (a number, or a number in a string) to nanoseconds, rounded half up. */
    private static long nanos(JsonNode us) {
        java.math.BigDecimal v = us.isTextual() ? new java.math.BigDecimal(us.asText()) : us.decimalValue();
        return v.movePointRight(3).setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
    }

    private static Generated generate(Random r) {
        Generated g = new Generated();
        Writer w = new Writer(r, g);
        StringBuilder doc = new StringBuilder();
        boolean arrayRoot = r.nextInt(8) == 0;
        if (!arrayRoot) {
            doc.append('{').append(w.ws()).append("\"schemaVersion\":").append(w.ws()).append("1,").append(w.ws());
            if (r.nextBoolean()) {
                doc.append("\"baseTimeNanoseconds\": 1700000000000000000,");
                g.base = 1_700_000_000_000_000_000L;
            }
            doc.append("\"traceEvents\"").append(w.ws()).append(':').append(w.ws());
        }
        doc.append('[');
        int n = 1 + r.nextInt(12);
        for (int i = 0; i < n; i++) {
            doc.append(w.ws());
            if (r.nextInt(30) == 0) {
                doc.append(r.nextBoolean() ? "17" : "[1, {\"ph\": \"X\"}]");
                g.rare = true;
            } else {
                String ev = w.event();
                g.eventTexts.add(ev);
                doc.append(ev);
            }
            doc.append(w.ws());
            if (i < n - 1 || r.nextInt(6) == 0) {
                doc.append(',');
            }
        }
        doc.append(w.ws()).append(']');
        if (!arrayRoot) {
            doc.append(',').append(w.ws()).append("\"displayTimeUnit\": \"ms\"").append(w.ws()).append('}');
        }
        g.json = doc.toString().getBytes(StandardCharsets.UTF_8);
        return g;
    }

    /** Writes JSON values in random legal forms. */
    private static final class Writer {
        private final Random r;
        private final Generated g;

        Writer(Random r, Generated g) {
            this.r = r;
            this.g = g;
        }

        String ws() {
            StringBuilder s = new StringBuilder();
            while (r.nextInt(3) == 0) {
                s.append(" \n\t\r".charAt(r.nextInt(4)));
            }
            return s.toString();
        }

        String event() {
            List<String> members = new ArrayList<>();
            members.add(member("ph", str(r.nextInt(5) == 0 ? "MfsiX".substring(r.nextInt(5)).substring(0, 1) : "X")));
            if (r.nextInt(10) != 0) {
                members.add(member("cat", str(CATEGORIES[r.nextInt(CATEGORIES.length)])));
            }
            if (r.nextInt(20) == 0) {
                // A number, a literal, an array or an object as a name: the tree gives a number's value and no
                // text for the others, the reader a number's text.
                members.add(member("name", r.nextBoolean() ? number() : any(2)));
                g.rare = true;
            } else {
                members.add(member("name", str(name())));
            }
            members.add(member("pid", r.nextInt(4) == 0 ? str(String.valueOf(r.nextInt(100))) : processId()));
            members.add(member("tid", r.nextInt(8) == 0 ? str("stream " + r.nextInt(9)) : processId()));
            if (r.nextInt(15) != 0) {
                members.add(member("ts", time()));
            }
            if (r.nextInt(8) != 0) {
                members.add(member("dur", time()));
            }
            if (r.nextInt(6) != 0) {
                members.add(member("args", args()));
            }
            if (r.nextInt(4) == 0) {
                members.add(member("id", any(2)));
            }
            if (r.nextInt(12) == 0) {
                members.add(members.get(r.nextInt(members.size()))); // a duplicate key: the last one wins
            }
            if (r.nextInt(12) == 0) {
                // A duplicate key with another value: the last one wins, in the tree as in the reader; but the
                // reader skips an event at a ph or cat it does not keep, whatever a later one says (rare).
                members.add(switch (r.nextInt(5)) {
                    case 0 -> member("name", str(name()));
                    case 1 -> member("ts", time());
                    case 2 -> member("dur", time());
                    default -> {
                        g.rare = true;
                        yield r.nextBoolean() ? member("ph", str("X"))
                                : member("cat", str(CATEGORIES[r.nextInt(CATEGORIES.length)]));
                    }
                });
            }
            java.util.Collections.shuffle(members, r);
            return object(members);
        }

        String args() {
            List<String> members = new ArrayList<>();
            int n = r.nextInt(8);
            for (int i = 0; i < n; i++) {
                String key = ARG_KEYS[r.nextInt(ARG_KEYS.length)];
                members.add(member(key, switch (r.nextInt(6)) {
                    case 0 -> integer();
                    case 1 -> str(name());
                    case 2 -> key.equals("grid") || key.equals("block") ? "[" + integer() + "," + integer() + ","
                            + integer() + (r.nextInt(4) == 0 ? "," + any(2) : "") + "]" : any(3);
                    case 3 -> "[[1, 2" + ws() + "], [], [\"float\"," + str(name()) + "], 0.5, null, true]";
                    default -> any(2);
                }));
            }
            return object(members);
        }

        String object(List<String> members) {
            StringBuilder s = new StringBuilder("{").append(ws());
            for (int i = 0; i < members.size(); i++) {
                if (i > 0) {
                    s.append(ws()).append(',').append(ws());
                }
                s.append(members.get(i));
            }
            if (!members.isEmpty() && r.nextInt(10) == 0) {
                s.append(',');
            }
            return s.append(ws()).append('}').toString();
        }

        String member(String key, String value) {
            return str(key) + ws() + ':' + ws() + value;
        }

        String any(int depth) {
            int k = r.nextInt(depth > 0 ? 9 : 6);
            return switch (k) {
                case 0 -> integer();
                case 1 -> number();
                case 2 -> str(name());
                case 3 -> "true";
                case 4 -> "false";
                case 5 -> "null";
                case 6 -> {
                    List<String> items = new ArrayList<>();
                    for (int i = r.nextInt(4); i > 0; i--) {
                        items.add(ws() + any(depth - 1) + ws());
                    }
                    yield "[" + String.join(",", items) + "]";
                }
                case 7 -> {
                    List<String> members = new ArrayList<>();
                    for (int i = r.nextInt(3); i > 0; i--) {
                        members.add(member(name(), any(depth - 1)));
                    }
                    yield object(members);
                }
                default -> {
                    g.rare = true;
                    yield List.of("NaN", "Infinity", "-Infinity", "\"a\u0001b\"").get(r.nextInt(4));
                }
            };
        }

        String integer() {
            return switch (r.nextInt(9)) {
                case 0 -> "-0";
                case 1 -> String.valueOf(r.nextLong());
                case 2 -> "18446744073709551615";
                case 3 -> "9223372036854775808";
                case 4 -> "-9223372036854775809";
                case 5 -> "123456789012345678901234567890";
                default -> String.valueOf(r.nextInt(100000));
            };
        }

        String number() {
            return switch (r.nextInt(8)) {
                case 0 -> "1.5e3";
                case 1 -> "-2E-2";
                case 2 -> "0.000";
                case 3 -> "1e+2";
                case 4 -> "12.50";
                default -> integer();
            };
        }

        String time() {
            long us = 1_700_000_000_000L + r.nextInt(1_000_000);
            return switch (r.nextInt(14)) {
                case 0 -> String.valueOf(us);
                case 1 -> us + "." + r.nextInt(1000);
                case 2 -> us + "." + r.nextInt(100_000) + "9";
                case 3 -> "\"" + us + ".5\"";
                case 4 -> "1.7e15";
                case 5 -> "-" + r.nextInt(1000) + ".25";
                case 6 -> "17E+11";
                case 7 -> us + String.format("%04de-4", r.nextInt(10_000)); // a fraction of a nanosecond, rounded
                case 8 -> "0." + us;
                case 9 -> r.nextBoolean() ? "0" : "-0";
                case 10 -> us + "." + "1234567890".repeat(1 + r.nextInt(3)); // more digits than nanoseconds
                case 11 -> "\"" + us + "e0\"";
                case 12 -> {
                    g.rare = true; // not a time: the tree check below cannot state it
                    yield List.of("null", "true", "\"\"", "\"x\"", "[]", "{}", "1e400").get(r.nextInt(7));
                }
                default -> us + ".123";
            };
        }

        /** A pid or tid: an integer mostly, else a number of another form or not a number. */
        String processId() {
            return switch (r.nextInt(16)) {
                case 0 -> "1.5";
                case 1 -> "1e2";
                case 2 -> "-" + r.nextInt(100);
                case 3 -> "null";
                case 4 -> "true";
                case 5 -> "[" + integer() + "]";
                case 6 -> "{}";
                default -> integer();
            };
        }

        /** A name: ASCII, C++ template text, quotes and backslashes, unicode of 2, 3 and 4 bytes. */
        String name() {
            String[] parts = {"aten::mm", "void at::native::kernel<float, 4>(int)", "nccl:all_reduce", "x\"y",
                    "back\\slash", "caf\u00e9", "\u65e5\u672c", "\ud83d\ude00", "tab\there", "ProfilerStep#3", "",
                    "nn.Module: Experts_0", "nn.Module"};
            return parts[r.nextInt(parts.length)] + (r.nextBoolean() ? "" : parts[r.nextInt(parts.length)]);
        }

        /** A JSON string of {@code text}, each character written plainly or escaped, at random. */
        String str(String text) {
            StringBuilder s = new StringBuilder("\"");
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                boolean mustEscape = c == '"' || c == '\\' || c < 0x20;
                if (Character.isHighSurrogate(c)) {
                    // A pair is escaped whole or written whole: half of one would not be UTF-8.
                    if (r.nextBoolean()) {
                        s.append(String.format("\\u%04x\\u%04X", (int) c, (int) text.charAt(i + 1)));
                    } else {
                        s.append(c).append(text.charAt(i + 1));
                    }
                    i++;
                } else if (mustEscape || r.nextInt(12) == 0) {
                    switch (r.nextInt(3)) {
                        case 0 -> s.append(String.format("\\u%04x", (int) c));
                        case 1 -> s.append(String.format("\\u%04X", (int) c));
                        default -> s.append(switch (c) {
                            case '"' -> "\\\"";
                            case '\\' -> "\\\\";
                            case '/' -> "\\/";
                            case '\t' -> "\\t";
                            case '\n' -> "\\n";
                            default -> String.format("\\u%04x", (int) c);
                        });
                    }
                } else {
                    s.append(c);
                }
            }
            return s.append('"').toString();
        }
    }
}
