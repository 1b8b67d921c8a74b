package dev.steptrace.timeline;

import dev.steptrace.quality.ClockOffsets;
import dev.steptrace.report.Fmt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testsupport.Cli;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clock alignment on a synthetic capture of two "hosts" whose clocks are 250 µs apart (synth
 * {@code --clock-offset}): the offsets found are EXPECTED.json's within 5 µs, and in the file the
 * instances of each collective end together.
 */
class TimelineAlignmentTest {
    private static final long HOST_OFFSET_NS = 250_000;
    private static final long TOLERANCE_NS = 5_000;
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    @TempDir
    static Path tmp;
    static Path capture;
    static Path db;
    static JsonNode expected;

    @BeforeAll
    static void synthesize() throws Exception {
        capture = tmp.resolve("two-hosts");
        db = tmp.resolve("st.duckdb");
        Cli.Result synth = Cli.run("synth", "--preset", "moe-tp8-graph", "--ranks", "4", "--steps", "2",
                "--prefill-steps", "0", "--clock-offset", "2-3=250us", "--out", capture.toString(), "-q");
        assertEquals(0, synth.exit(), synth::describe);
        expected = JSON.readTree(capture.resolve("EXPECTED.json").toFile());
    }

    /** EXPECTED.json's clock offset of each rank, relative to rank 0's. */
    private static Map<Integer, Long> trueOffsets() {
        Map<Integer, Long> byRank = new HashMap<>();
        for (JsonNode f : expected.get("files")) {
            byRank.put(f.get("rank").asInt(), f.get("clock_offset_ns").asLong());
        }
        long base = byRank.get(0);
        byRank.replaceAll((r, ns) -> ns - base);
        return byRank;
    }

    @Test
    void offsetsAreFoundAndReported() throws Exception {
        for (String phase : List.of("decode")) {
            Path file = tmp.resolve(phase + ".json.gz");
            Cli.Result r = Cli.run("timeline", capture.toString(), "--db", db.toString(), "--phase", phase,
                    "--out", file.toString());
            Cli.assertExit(0, r);
            JsonNode doc = read(file);
            Map<Integer, Long> truth = trueOffsets();
            assertTrue(truth.get(2) > HOST_OFFSET_NS - TOLERANCE_NS, "the second host's clock is ahead: " + truth);
            for (JsonNode rank : doc.at("/steptrace/alignment/ranks")) {
                int n = rank.get("rank").asInt();
                long found = rank.get("offset_ns").asLong();
                assertTrue(Math.abs(found - truth.get(n)) <= TOLERANCE_NS, phase + " rank " + n + ": found " + found
                        + " ns, true " + truth.get(n) + " ns");
                assertTrue(r.err().contains("rank " + n + " " + Fmt.signedUs(found / 1e3) + " µs"),
                        "the command reports rank " + n + "'s offset\n" + r.describe());
                assertTrue(rank.get("instances").asInt() > 0);
            }
            assertEquals(0, doc.at("/steptrace/alignment/warnings").size(), "estimates agree: " + doc.at("/steptrace/alignment"));
            assertTrue(maxEndSpread(doc) <= TOLERANCE_NS, phase + ": collective instances end together in the file: "
                    + maxEndSpread(doc));
        }
    }

    @Test
    void withoutAlignmentTheHostsAreApart() throws Exception {
        Path file = tmp.resolve("unaligned.json.gz");
        Cli.Result r = Cli.run("timeline", capture.toString(), "--db", db.toString(), "--align", "none",
                "--out", file.toString());
        Cli.assertExit(0, r);
        JsonNode doc = read(file);
        assertEquals("none", doc.at("/steptrace/alignment/method").asText());
        assertTrue(r.err().contains("clocks not aligned (--align none)"), r::describe);
        long spread = maxEndSpread(doc);
        assertTrue(spread > HOST_OFFSET_NS - TOLERANCE_NS, "the traces' own clocks: ends " + spread + " ns apart");
    }

    /** The largest difference between the end times of one collective instance's kernels (joined by flows). */
    private static long maxEndSpread(JsonNode doc) {
        Map<String, JsonNode> kernels = new HashMap<>();
        Map<Long, List<JsonNode>> flows = new HashMap<>();
        for (JsonNode e : doc.get("traceEvents")) {
            String ph = e.get("ph").asText();
            if (ph.equals("X") && e.path("args").has("collective") && e.get("cat").asText().equals("kernel")) {
                kernels.put(e.get("pid").asInt() + "/" + e.get("tid").asInt() + "@" + nanos(e.get("ts")), e);
            } else if (ph.equals("s") || ph.equals("t") || ph.equals("f")) {
                flows.computeIfAbsent(e.get("id").asLong(), k -> new ArrayList<>()).add(e);
            }
        }
        assertTrue(flows.size() > 100, "collective instances: " + flows.size());
        long worst = 0;
        for (List<JsonNode> points : flows.values()) {
            assertEquals(4, points.size(), "one point per rank");
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (JsonNode p : points) {
                // the point is 1 ns into its kernel
                JsonNode k = kernels.get(p.get("pid").asInt() + "/" + p.get("tid").asInt() + "@" + (nanos(p.get("ts")) - 1));
                long end = nanos(k.get("ts")) + nanos(k.get("dur"));
                min = Math.min(min, end);
                max = Math.max(max, end);
            }
            worst = Math.max(worst, max - min);
        }
        return worst;
    }

    /**
     * Rank 1 ends 2 µs after rank 0 at every instance; rank 2 ends 0 or 200 µs after, so its estimates spread over
     * 200 µs; ranks 1 and 2 share a host but their offsets are 98 µs apart. The estimates of query clock-offsets
     * over 10 such instances (its test, queries/clock-offsets.test, works them out): per instance the median end is
     * rank 0's or rank 1's, so rank 0 reads -1000 ns (p10 -2000, p90 0), rank 1 +1000 (0, 2000), rank 2 +99000
     * (0, 198000).
     */
    @Test
    void disagreeingEstimatesAreWarnedAbout() {
        ClockAlignment a = ClockAlignment.fromClocks(List.of(new ClockOffsets.RankClock(0, -1_000, 10, -2_000, 0),
                new ClockOffsets.RankClock(1, 1_000, 10, 0, 2_000), new ClockOffsets.RankClock(2, 99_000, 10, 0, 198_000)),
                List.of(0, 1, 2), Map.of(1, "node-b", 2, "node-b"));
        assertEquals(0, a.referenceRank());
        assertEquals(2_000, a.offset(1));
        assertEquals(2, a.warnings().size(), "" + a.warnings());
        assertTrue(a.warnings().get(0).startsWith("rank 2: its collective end times disagree by 198.0 µs"),
                a.warnings().get(0));
        assertTrue(a.warnings().get(1).startsWith("ranks 1, 2 share host node-b (one clock) but their offsets differ by"
                + " 98.0 µs"), a.warnings().get(1));
    }

    private static JsonNode read(Path file) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return JSON.readTree(in);
        }
    }

    private static long nanos(JsonNode micros) {
        return micros.decimalValue().movePointRight(3).longValueExact();
    }
}
