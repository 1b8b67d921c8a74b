package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.Gzip;
import dev.steptrace.testsupport.StoreDb;
import dev.steptrace.testsupport.TraceOracle;
import dev.steptrace.testsupport.TraceOracle.Trace;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.Inflater;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Real traces, damaged at random points the way files really break (a profiler killed mid-write, a
 * bad disk block, a bad copy), each ingested through the real command line. Whatever the damage:
 * no stack trace and exit 0 or 1 as the README's exit codes say, every complete event before the damage is in the
 * store (worked out by {@link TraceOracle} from the pristine bytes, not by the reader), no event is
 * invented, and every table still answers a query.
 *
 * <p>Traces: the small real traces kept with the tests ({@code small-traces/}, always), plus slices of the real traces in
 * {@code ../shared} when that checkout is beside the repository.
 */
class CorruptedTraceProperties {
    /** Events kept of each trace taken from ../shared: one ingest stays short, the class well under a minute. */
    private static final int SHARED_SLICE_EVENTS = 400;
    private static final int SHARED_PREFIX_BYTES = 2 << 20;

    private static final List<Trace> TRACES = new ArrayList<>();
    private static final Map<Trace, byte[]> GZIPPED = new IdentityHashMap<>();
    private static Path sharedDir;

    static {
        try {
            try (Stream<Path> files = Files.list(TestData.smallTraces())) {
                for (Path p : files.filter(f -> f.toString().endsWith(".json.gz")).sorted().toList()) {
                    byte[] json;
                    try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
                        json = in.readAllBytes();
                    }
                    TRACES.add(TraceOracle.of("small-traces/" + p.getFileName(), json));
                }
            }
            String env = System.getenv("STEPTRACE_SHARED");
            sharedDir = firstExisting(env == null ? null : Path.of(env), Path.of("..", "..", "shared"),
                    Path.of("..", "shared"));
            if (sharedDir != null) {
                try (Stream<Path> files = Stream.concat(walk(sharedDir.resolve("compat-traces")),
                        walk(sharedDir.resolve("sample-traces")))) {
                    for (Path p : files.filter(f -> f.toString().endsWith(".json.gz")).sorted().toList()) {
                        byte[] prefix;
                        try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
                            prefix = in.readNBytes(SHARED_PREFIX_BYTES);
                        }
                        TRACES.add(TraceOracle.slice("shared/" + sharedDir.relativize(p), prefix, SHARED_SLICE_EVENTS));
                    }
                }
            }
            for (Trace t : TRACES) {
                GZIPPED.put(t, Gzip.of(t.json));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void tracesFromSharedArePartOfThePool() {
        Assumptions.assumeTrue(sharedDir != null, "../../shared (the steering checkout) is not beside the"
                + " repository: the properties ran on small-traces/ only, not on slices of shared/compat-traces"
                + " and shared/sample-traces");
        assertTrue(TRACES.size() > 2, () -> "only " + TRACES + " from " + sharedDir);
    }

    @Provide
    Arbitrary<Trace> traces() {
        return Arbitraries.of(TRACES);
    }

    /**
     * Where the damage goes, per million of the length: uniform over the file (jqwik's default for a
     * wide int range favours small values, which would put most damage in the header), plus the edges.
     */
    @Provide
    Arbitrary<Integer> perMillion() {
        return Arbitraries.integers().between(0, 999_999).withDistribution(RandomDistribution.uniform());
    }

    /** A position as a fraction (per million) of some length, so every trace's whole range is drawn. */
    private static int at(int perMillion, int length) {
        return (int) ((long) length * perMillion / 1_000_000);
    }

    @Property
    void truncatedJson(@ForAll("traces") Trace t, @ForAll("perMillion") int perMillion) throws Exception {
        int cut = at(perMillion, t.json.length);
        Outcome o = ingest(t, Arrays.copyOf(t.json, cut), false);
        o.assertCommon(cut);
        if (cut >= t.documentEnd) {
            assertEquals("ingested", o.status, o::describe);
        } else {
            assertNotEquals("ingested", o.status, o::describe);
            if (o.status.equals("partial")) {
                assertEquals(cut, o.damageOffset, o::describe);
                assertTrue(o.reason.contains("truncated") && o.reason.endsWith("at byte " + cut), o::describe);
            }
        }
    }

    @Property
    void truncatedGzip(@ForAll("traces") Trace t, @ForAll("perMillion") int perMillion) throws Exception {
        byte[] gz = GZIPPED.get(t);
        byte[] cutGz = Arrays.copyOf(gz, at(perMillion, gz.length));
        // How much JSON the cut file still holds: decompress it as far as it goes.
        byte[] survived = survivingJson(cutGz);
        assertArrayEquals(Arrays.copyOf(t.json, survived.length), survived);
        Outcome o = ingestFile(t, cutGz, true, survived.length);
        o.assertCommon(survived.length);
        if (survived.length < t.documentEnd) {
            assertNotEquals("ingested", o.status, o::describe);
            if (o.status.equals("partial")) {
                assertEquals(survived.length, o.damageOffset, o::describe);
            }
        }
    }

    @Property
    void overwrittenBytes(@ForAll("traces") Trace t, @ForAll("perMillion") int perMillion,
                          @ForAll @Size(min = 1, max = 4) byte[] bytes, @ForAll boolean gzip) throws Exception {
        int p = at(perMillion, t.json.length - bytes.length);
        byte[] damaged = t.json.clone();
        System.arraycopy(bytes, 0, damaged, p, bytes.length);
        Outcome o = ingest(t, damaged, gzip);
        o.assertCommon(p);
        // A ']' can end the event list early: what follows is then outside the list and lost, by design.
        for (byte b : bytes) {
            if (b == ']') {
                return;
            }
        }
        o.assertRecoveredAfter(p, p + bytes.length - 1);
    }

    @Property
    void deletedByte(@ForAll("traces") Trace t, @ForAll("perMillion") int perMillion,
                     @ForAll boolean gzip) throws Exception {
        int p = at(perMillion, t.json.length);
        byte[] damaged = new byte[t.json.length - 1];
        System.arraycopy(t.json, 0, damaged, 0, p);
        System.arraycopy(t.json, p + 1, damaged, p, t.json.length - p - 1);
        Outcome o = ingest(t, damaged, gzip);
        o.assertCommon(p);
        o.assertRecoveredAfter(p, p);
    }

    @Property
    void strayQuote(@ForAll("traces") Trace t, @ForAll("perMillion") int perMillion,
                    @ForAll boolean gzip) throws Exception {
        int p = at(perMillion, t.json.length);
        byte[] damaged = new byte[t.json.length + 1];
        System.arraycopy(t.json, 0, damaged, 0, p);
        damaged[p] = '"';
        System.arraycopy(t.json, p, damaged, p + 1, t.json.length - p);
        Outcome o = ingest(t, damaged, gzip);
        o.assertCommon(p);
        o.assertRecoveredAfter(p, p);
    }

    /**
     * A byte of a gzip file flipped (a bad disk block, a bad copy): gzip members of compressed or stored
     * data, one or several. Whatever the flip: the events before the first decompressed byte it makes
     * wrong are kept, and no row the intact file does not have is stored unless the file says its
     * content may be wrong. A file that loads as {@code ingested} holds exactly the intact file's rows
     * (the flip hit a header field nothing checks).
     */
    @Property
    void flippedGzipByte(@ForAll("traces") Trace t, @ForAll("perMillion") int perMillion,
                         @ForAll @IntRange(min = 1, max = 255) int mask, @ForAll @IntRange(min = 1, max = 3) int members,
                         @ForAll boolean stored) throws Exception {
        Members gz = Members.of(t.json, members, stored ? Deflater.NO_COMPRESSION : Deflater.DEFAULT_COMPRESSION);
        int p = at(perMillion, gz.bytes.length);
        byte[] damaged = gz.bytes.clone();
        damaged[p] ^= (byte) mask;
        int intact = gz.intactPrefix(t.json, damaged, p, mask);
        Outcome o = ingestFile(t, damaged, true, t.json.length);
        Statistics.label("status").collect(o.status);
        Cli.assertCleanStderr(o.result);
        assertEquals(o.status.equals("skipped") ? 1 : 0, o.result.exit(), o::describe);
        Map<String, Integer> pristine = t.rowsOfEventsEndingBy(Long.MAX_VALUE);
        if (o.status.equals("ingested")) {
            assertEquals(pristine, o.rows, () -> "byte " + p + " ^ " + mask + "\n" + o.describe());
            return;
        }
        assertTrue(Set.of("partial", "skipped").contains(o.status), o::describe);
        Map<String, Integer> before = t.rowsOfEventsEndingBy(intact);
        List<String> missing = TraceOracle.missing(before, o.rows);
        assertTrue(missing.isEmpty(), () -> missing.size() + " of the " + TraceOracle.total(before)
                + " complete events before byte " + intact + " (the first one the flip of file byte " + p + " ^ "
                + mask + " makes wrong) are not in the store, e.g. " + missing.subList(0, Math.min(3, missing.size()))
                + "\n" + o.describe());
        if (o.reason == null || !o.reason.startsWith("content may be wrong: ")) {
            List<String> invented = TraceOracle.missing(o.rows, pristine);
            assertTrue(invented.isEmpty(), () -> invented.size() + " rows the intact file does not have, and the"
                    + " file does not say its content may be wrong (byte " + p + " ^ " + mask + "), e.g. "
                    + invented.subList(0, Math.min(3, invented.size())) + "\n" + o.describe());
        }
    }

    /**
     * A profiler killed mid-write, then the capture rerun into the same file: the second ingest
     * replaces the partial rows with exactly the whole trace's (this also checks the oracle against
     * the reader on undamaged input).
     */
    @Property(tries = 12)
    void cutFileRewrittenWholeIsReplaced(@ForAll("traces") Trace t, @ForAll("perMillion") int perMillion)
            throws Exception {
        byte[] gz = GZIPPED.get(t);
        Path dir = Files.createTempDirectory("steptrace-rewritten-");
        try {
            Path file = Files.createDirectories(dir.resolve("capture")).resolve("rank0.pt.trace.json.gz");
            Path db = dir.resolve("store.duckdb");
            Files.write(file, Arrays.copyOf(gz, at(perMillion, gz.length)));
            Cli.Result first = Cli.ingestJson(db, file);
            Cli.assertCleanStderr(first);
            Files.write(file, gz);
            Cli.Result second = Cli.ingestJson(db, file);
            Cli.assertExit(0, second);
            assertEquals("ingested", second.file(file.getFileName().toString()).path("status").asText(),
                    second::describe);
            try (StoreDb s = StoreDb.open(db)) {
                s.assertQueryable();
                assertEquals(1, s.count("SELECT count(*) FROM files"));
                assertEquals("ingested", s.string("SELECT status FROM files"));
                Map<String, Integer> expected = t.rowsOfEventsEndingBy(Long.MAX_VALUE);
                Map<String, Integer> actual = TraceOracle.storeRows(s.connection());
                assertEquals(expected, actual, () -> t + ": missing " + TraceOracle.missing(expected, actual)
                        + ", unexpected " + TraceOracle.missing(actual, expected));
            }
        } finally {
            deleteTree(dir);
        }
    }

    // ---- one ingest and what must hold after it ----

    /** What one ingest of a damaged variant printed and stored. */
    private static final class Outcome {
        final Trace trace;
        final String variant;
        final Cli.Result result;
        final String status;
        final String reason;
        final Long damageOffset;
        final long fileLength;
        final Map<String, Integer> rows;

        Outcome(Trace trace, String variant, Cli.Result result, String status, String reason, Long damageOffset,
                long fileLength, Map<String, Integer> rows) {
            this.trace = trace;
            this.variant = variant;
            this.result = result;
            this.status = status;
            this.reason = reason;
            this.damageOffset = damageOffset;
            this.fileLength = fileLength;
            this.rows = rows;
        }

        String describe() {
            return trace + ", " + variant + ": status " + status + ", reason " + reason + ", damage_offset "
                    + damageOffset + "\n" + result.describe();
        }

        /**
         * Holds whatever the damage: every complete event that ends at or before {@code damageAt}
         * (an offset of the pristine JSON, before which the damaged JSON is identical) is stored,
         * nothing beyond the pristine trace's rows is, and the exit code matches the status.
         */
        void assertCommon(long damageAt) {
            Statistics.label("status").collect(status);
            Cli.assertCleanStderr(result);
            assertTrue(Set.of("ingested", "partial", "skipped").contains(status), this::describe);
            assertEquals(status.equals("skipped") ? 1 : 0, result.exit(), this::describe);
            Map<String, Integer> expected = trace.rowsOfEventsEndingBy(damageAt);
            List<String> missing = TraceOracle.missing(expected, rows);
            assertTrue(missing.isEmpty(), () -> missing.size() + " of the " + TraceOracle.total(expected)
                    + " complete events before byte " + damageAt + " are not in the store, e.g. "
                    + missing.subList(0, Math.min(3, missing.size())) + "\n" + describe());
            assertTrue(TraceOracle.total(rows) <= trace.storedRows(), () -> TraceOracle.total(rows)
                    + " rows stored, more than the pristine trace's " + trace.storedRows() + "\n" + describe());
            if (status.equals("partial")) {
                assertTrue(damageOffset != null && reason.contains("at byte " + damageOffset), this::describe);
                // The offset names the damage, not an earlier spot: nothing before the last complete event was damaged.
                assertTrue(damageOffset >= trace.lastEventEndBy(damageAt) && damageOffset <= fileLength,
                        this::describe);
            }
        }

        /**
         * Damage inside the event list costs the damaged event and at most the next one (whose
         * separator the damage may have eaten): the reader goes on with the events after it.
         * {@code from} and {@code to} are the first and last damaged bytes, as offsets of the pristine JSON.
         */
        void assertRecoveredAfter(int from, int to) {
            if (from <= trace.events.get(0).start() || to >= trace.events.get(trace.events.size() - 1).end()) {
                return; // damage in the header or after the list: nothing says how much a reader could save
            }
            Map<String, Integer> later = trace.rowsOfEventsStartingFrom(trace.endOfEventAfterTheOneEndingAfter(to));
            List<String> missing = TraceOracle.missing(later, rows);
            assertTrue(missing.isEmpty(), () -> missing.size() + " of the " + TraceOracle.total(later)
                    + " events well after the damage at bytes " + from + "-" + to + " are not in the store, e.g. "
                    + missing.subList(0, Math.min(3, missing.size())) + "\n" + describe());
        }
    }

    private static Outcome ingest(Trace t, byte[] json, boolean gzip) throws Exception {
        return ingestFile(t, gzip ? Gzip.of(json) : json, gzip, json.length);
    }

    private static Outcome ingestFile(Trace t, byte[] fileBytes, boolean gzip, long jsonLength) throws Exception {
        Path dir = Files.createTempDirectory("steptrace-damaged-");
        try {
            Path file = Files.createDirectories(dir.resolve("capture"))
                    .resolve(gzip ? "rank0.damaged.pt.trace.json.gz" : "rank0.damaged.pt.trace.json");
            Files.write(file, fileBytes);
            Path db = dir.resolve("store.duckdb");
            Cli.Result r = Cli.ingestJson(db, file);
            String variant = (gzip ? "gzip, " : "plain, ") + fileBytes.length + " file bytes";
            JsonNode files = r.json().path("files");
            assertEquals(1, files.size(), r::describe);
            JsonNode f = files.get(0);
            String status = f.path("status").asText();
            String reason = f.path("reason").isNull() ? null : f.path("reason").asText();
            Long damageOffset = null;
            Map<String, Integer> rows;
            try (StoreDb s = StoreDb.open(db)) {
                s.assertQueryable();
                rows = TraceOracle.storeRows(s.connection());
                if (status.equals("partial")) {
                    damageOffset = s.count("SELECT damage_offset FROM files");
                    assertEquals(reason, s.string("SELECT partial_reason FROM files"));
                }
                if (!status.equals("ingested") && !status.equals("partial")) {
                    assertEquals(0, s.count("SELECT count(*) FROM files"), r::describe);
                }
            }
            return new Outcome(t, variant, r, status, reason, damageOffset, jsonLength, rows);
        } finally {
            deleteTree(dir);
        }
    }

    /**
     * A trace written as gzip members (the JSON split in equal parts, each part one member, as {@code cat
     * a.gz b.gz} makes), and how much of it a damaged copy still yields.
     */
    private static final class Members {
        /** Java writes a 10-byte header without optional fields. */
        private static final int HEADER = 10;
        /** CRC-32 and length, 4 bytes each. */
        private static final int TRAILER = 8;
        final byte[] bytes;
        /** Per member: its offset in the file and the offset of its content in the JSON. */
        final int[] fileStart;
        final int[] jsonStart;

        private Members(byte[] bytes, int[] fileStart, int[] jsonStart) {
            this.bytes = bytes;
            this.fileStart = fileStart;
            this.jsonStart = jsonStart;
        }

        static Members of(byte[] json, int members, int level) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int[] fileStart = new int[members];
            int[] jsonStart = new int[members];
            for (int m = 0; m < members; m++) {
                fileStart[m] = out.size();
                jsonStart[m] = (int) ((long) json.length * m / members);
                int end = (int) ((long) json.length * (m + 1) / members);
                GZIPOutputStream gz = new GZIPOutputStream(out) {
                    {
                        def.setLevel(level);
                    }
                };
                gz.write(json, jsonStart[m], end - jsonStart[m]);
                gz.finish();
            }
            return new Members(out.toByteArray(), fileStart, jsonStart);
        }

        /**
         * The length of the prefix of {@code json} that {@code damaged} (these members with file byte
         * {@code flipped} xor {@code mask}) inflates to before its first wrong byte: each member's deflate
         * data inflated one output byte at a time with {@link Inflater}, from where the intact file has
         * it. A flip in the gzip magic, method or flags (but FTEXT, a hint) breaks its member from the
         * start; one in the time stamp, XFL or OS byte changes no content byte. One in a trailer (CRC-32,
         * length) changes no content byte either, but the member fails its check there, and nothing
         * after it is read: the intact prefix ends with that member.
         */
        int intactPrefix(byte[] json, byte[] damaged, int flipped, int mask) {
            byte[] one = new byte[1];
            for (int m = 0; m < fileStart.length; m++) {
                int headerByte = flipped - fileStart[m];
                if (headerByte >= 0 && headerByte < 3 || headerByte == 3 && mask != 1) {
                    return jsonStart[m];
                }
                int at = jsonStart[m];
                int end = m + 1 < jsonStart.length ? jsonStart[m + 1] : json.length;
                Inflater inflater = new Inflater(true);
                try {
                    inflater.setInput(damaged, fileStart[m] + HEADER, damaged.length - fileStart[m] - HEADER);
                    for (; at < end; at++) {
                        if (inflater.inflate(one) == 0 || one[0] != json[at]) {
                            return at;
                        }
                    }
                    if (inflater.inflate(one) == 1) {
                        return end; // more content than the member had: the byte after it is wrong
                    }
                    int memberEnd = m + 1 < fileStart.length ? fileStart[m + 1] : bytes.length;
                    if (flipped >= memberEnd - TRAILER && flipped < memberEnd) {
                        return end;
                    }
                } catch (DataFormatException e) {
                    return at;
                } finally {
                    inflater.end();
                }
            }
            return json.length;
        }
    }

    private static byte[] survivingJson(byte[] gz) {
        try {
            return TraceOracle.readAsFarAsPossible(new GZIPInputStream(new ByteArrayInputStream(gz)));
        } catch (IOException headerCut) {
            return new byte[0];
        }
    }

    private static Path firstExisting(Path... candidates) {
        for (Path p : candidates) {
            if (p != null && Files.isDirectory(p)) {
                return p.toAbsolutePath().normalize();
            }
        }
        return null;
    }

    private static Stream<Path> walk(Path dir) throws IOException {
        return Files.isDirectory(dir) ? Files.walk(dir) : Stream.empty();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
