package dev.steptrace.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.ProfilerStepOracle;
import dev.steptrace.testsupport.ProfilerStepOracle.GpuEvent;
import dev.steptrace.testsupport.StoreDb;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timeline of two decode steps of the real eager H200 capture (2 ranks, NCCL all-reduces with
 * rank 1 arriving late), checked as a Chrome trace, read back by steptrace's own Kineto reader, and
 * against the raw traces parsed here as JSON trees.
 */
class TimelineOnRealTracesTest {
    /** Decode steps 3 and 4 are ProfilerStep#6 and #7: #2 is the prefill, decode starts at #3 (sample README). */
    private static final List<Integer> STEPS = List.of(3, 4);
    private static final int FIRST_DECODE_PROFILER_STEP = 1;
    private static final Set<String> GPU_CATS = Set.of("kernel", "gpu_memcpy", "gpu_memset");
    private static final Pattern MICROS = Pattern.compile("-?\\d+\\.\\d{3}");
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    @TempDir
    static Path tmp;
    static Path capture;
    static Path timeline;
    static JsonNode doc;
    static Cli.Result written;
    /** Per rank, the GPU operations each ProfilerStep launched, from the raw trace. */
    static Map<Integer, List<List<GpuEvent>>> oracle = new HashMap<>();

    @BeforeAll
    static void writeTimeline() throws Exception {
        capture = TestData.sampleTraces().resolve("h200-tp2-moe-eager/batch16-prefill256");
        timeline = tmp.resolve("read-back/eager.json.gz");
        written = Cli.run("timeline", capture.toString(), "--db", tmp.resolve("st.duckdb").toString(),
                "--phase", "decode", "--steps", "3-4", "--out", timeline.toString());
        Cli.assertExit(0, written);
        assertEquals(timeline.toString(), written.out().strip(), "stdout names the file written");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(timeline))) {
            doc = JSON.readTree(in);
        }
        for (Path trace : TestData.kinetoTraces(capture)) {
            int rank = Integer.parseInt(trace.getFileName().toString().substring(4, 5));
            oracle.put(rank, ProfilerStepOracle.eventsPerStep(trace, e -> GPU_CATS.contains(e.path("cat").asText())));
        }
    }

    private static Stream<JsonNode> events() {
        List<JsonNode> all = new ArrayList<>();
        doc.get("traceEvents").forEach(all::add);
        return all.stream();
    }

    private static long nanos(JsonNode micros) {
        return micros.decimalValue().movePointRight(3).longValueExact();
    }

    /** pid of each rank, from the process names ("rank 1 · NVIDIA H200"). */
    private static Map<Integer, Integer> pidOfRank() {
        Map<Integer, Integer> pids = new TreeMap<>();
        events().filter(e -> e.get("ph").asText().equals("M") && e.get("name").asText().equals("process_name"))
                .forEach(e -> {
                    Matcher m = Pattern.compile("^rank (\\d+) · ").matcher(e.at("/args/name").asText());
                    assertTrue(m.find(), "process name " + e);
                    pids.put(Integer.parseInt(m.group(1)), e.get("pid").asInt());
                });
        return pids;
    }

    @Test
    void isAValidChromeTrace() throws Exception {
        assertEquals("steptrace.timeline/1", doc.at("/steptrace/schema").asText());
        assertEquals("collective_ends", doc.at("/steptrace/alignment/method").asText(), "the alignment used is named");
        assertEquals(List.of(3, 4), ints(doc.at("/steptrace/steps")));
        Set<String> phases = new HashSet<>();
        Map<String, Set<String>> metadataByPid = new HashMap<>();
        Set<String> threadsUsed = new HashSet<>();
        Set<String> threadsNamed = new HashSet<>();
        Map<String, List<JsonNode>> slicesByThread = new HashMap<>();
        Map<Long, List<JsonNode>> flows = new TreeMap<>();
        // Raw text of the numbers: µs with exactly three decimals (what the file says, not a double).
        String text;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(timeline))) {
            text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        Matcher ts = Pattern.compile("\"(ts|dur)\":(-?[0-9.eE+]+)").matcher(text);
        int numbers = 0;
        while (ts.find()) {
            numbers++;
            assertTrue(MICROS.matcher(ts.group(2)).matches(), "µs with three decimals: " + ts.group());
        }
        assertTrue(numbers > 10_000, "timestamps found: " + numbers);
        for (JsonNode e : (Iterable<JsonNode>) events()::iterator) {
            String ph = e.get("ph").asText();
            phases.add(ph);
            assertTrue(e.get("pid").isInt(), "pid: " + e);
            String pid = e.get("pid").asText();
            switch (ph) {
                case "X" -> {
                    assertTrue(e.get("name").isTextual() && !e.get("name").asText().isEmpty(), "name: " + e);
                    assertTrue(e.get("cat").isTextual(), "cat: " + e);
                    assertTrue(nanos(e.get("ts")) >= 0 && nanos(e.get("dur")) >= 0, "times from the origin: " + e);
                    threadsUsed.add(pid + "/" + e.get("tid").asInt());
                    slicesByThread.computeIfAbsent(pid + "/" + e.get("tid").asInt(), k -> new ArrayList<>()).add(e);
                }
                case "M" -> {
                    String name = e.get("name").asText();
                    metadataByPid.computeIfAbsent(pid, k -> new HashSet<>()).add(name);
                    if (name.equals("thread_name")) {
                        threadsNamed.add(pid + "/" + e.get("tid").asInt());
                        assertFalse(e.at("/args/name").asText().isEmpty());
                    }
                    assertTrue(Set.of("process_name", "process_sort_index", "thread_name", "thread_sort_index")
                            .contains(name), "metadata event " + e);
                }
                case "s", "t", "f" -> flows.computeIfAbsent(e.get("id").asLong(), k -> new ArrayList<>()).add(e);
                default -> fail("unexpected phase " + e);
            }
        }
        assertEquals(Set.of("X", "M", "s", "f"), phases, "two ranks: each flow is a start and an end");
        assertEquals(2, metadataByPid.size(), "one process per rank");
        metadataByPid.values().forEach(m -> assertTrue(m.containsAll(Set.of("process_name", "process_sort_index",
                "thread_name", "thread_sort_index")), "metadata " + m));
        assertEquals(threadsUsed, threadsNamed, "every thread with slices has a name, and no other");

        // Slices of one thread nest or follow each other (Perfetto moves a slice that overlaps its
        // neighbour to an overflow row). Only GPU operations may overlap: the trace has kernels that
        // start before the previous one on their stream ends (programmatic dependent launch).
        slicesByThread.forEach((thread, slices) -> {
            slices.sort((a, b) -> a.get("ts").decimalValue().compareTo(b.get("ts").decimalValue()) != 0
                    ? a.get("ts").decimalValue().compareTo(b.get("ts").decimalValue())
                    : b.get("dur").decimalValue().compareTo(a.get("dur").decimalValue()));
            List<Long> open = new ArrayList<>();
            for (JsonNode s : slices) {
                long start = nanos(s.get("ts"));
                long end = start + nanos(s.get("dur"));
                while (!open.isEmpty() && open.get(open.size() - 1) <= start) {
                    open.remove(open.size() - 1);
                }
                if (!open.isEmpty() && end > open.get(open.size() - 1)) {
                    assertTrue(GPU_CATS.contains(s.get("cat").asText()), "slice overlaps its parent: " + s);
                    continue;
                }
                open.add(end);
            }
        });

        // Every collective instance is one flow: start, (steps,) end; on different ranks, in time order,
        // each point inside a collective kernel of that type on the same thread.
        long collectiveKernels = events().filter(e -> e.path("args").has("collective")
                && e.get("cat").asText().equals("kernel")).count();
        assertTrue(collectiveKernels > 200, "collective kernels: " + collectiveKernels);
        assertEquals(collectiveKernels / 2, flows.size(), "one flow per instance, each on both ranks");
        for (List<JsonNode> points : flows.values()) {
            assertEquals(2, points.size(), "points " + points);
            assertEquals(List.of("s", "f"), points.stream().map(p -> p.get("ph").asText()).toList());
            assertEquals("e", points.get(1).get("bp").asText(), "the end binds to its enclosing slice");
            assertTrue(nanos(points.get(0).get("ts")) <= nanos(points.get(1).get("ts")), "start first: " + points);
            assertEquals(2, points.stream().map(p -> p.get("pid").asInt()).distinct().count(), "across ranks: " + points);
            for (JsonNode p : points) {
                long t = nanos(p.get("ts"));
                boolean inside = slicesByThread.get(p.get("pid").asText() + "/" + p.get("tid").asInt()).stream()
                        .anyMatch(s -> s.get("cat").asText().equals("kernel")
                                && s.at("/args/collective").asText().equals(p.get("name").asText())
                                && nanos(s.get("ts")) < t && t < nanos(s.get("ts")) + nanos(s.get("dur")));
                assertTrue(inside, "flow point inside a collective kernel of its type: " + p);
            }
        }
    }

    /**
     * Read back with steptrace, the file holds each rank's GPU operations of steps 3 and 4 exactly: per
     * rank (process), the same count, and for each operation of the raw trace (launched inside
     * ProfilerStep#6 or #7) one at the same start, shifted by the rank's clock offset, with the same
     * duration; its full name is in its args and its display name is {@code category: short name}.
     */
    @Test
    void readBackHoldsEachRanksOperationsOfTheSteps() throws Exception {
        Path db = tmp.resolve("read-back.duckdb");
        // Named itself: in a directory's walk steptrace's own timelines are passed over.
        Cli.Result passedOver = Cli.ingestJson(tmp.resolve("walked.duckdb"), timeline.getParent());
        assertEquals(1, passedOver.exit(), passedOver::describe);
        assertTrue(passedOver.err().contains("a timeline steptrace wrote, not a trace"), passedOver::describe);
        Cli.Result ingest = Cli.ingestJson(db, timeline);
        assertEquals(0, ingest.exit(), ingest::describe);
        Map<Integer, Integer> pids = pidOfRank();
        assertEquals(Set.of(0, 1), pids.keySet());
        Map<Integer, Long> offsets = new HashMap<>();
        doc.at("/steptrace/alignment/ranks").forEach(r -> offsets.put(r.get("rank").asInt(), r.get("offset_ns").asLong()));
        // display name and full name of each written GPU operation, by pid and start
        Map<String, JsonNode> writtenByStart = new HashMap<>();
        events().filter(e -> GPU_CATS.contains(e.path("cat").asText()))
                .forEach(e -> writtenByStart.put(e.get("pid").asInt() + "@" + nanos(e.get("ts")), e));
        long base = doc.get("baseTimeNanoseconds").asLong();

        for (int rank : oracle.keySet()) {
            List<GpuEvent> expected = new ArrayList<>();
            List<List<GpuEvent>> perStep = oracle.get(rank);
            for (int step : STEPS) {
                expected.addAll(perStep.get(FIRST_DECODE_PROFILER_STEP + step));
            }
            List<String> want = new ArrayList<>();
            for (GpuEvent e : expected) {
                want.add((e.tsNs() - offsets.get(rank)) + "/" + e.durNs());
            }
            List<String> got = new ArrayList<>();
            try (StoreDb store = StoreDb.open(db);
                 Statement s = store.connection().createStatement();
                 ResultSet rs = s.executeQuery("SELECT g.ts_ns, g.dur_ns, n.name FROM gpu_ops g"
                         + " JOIN names n USING (file_id, name_id) WHERE g.device = " + pids.get(rank))) {
                while (rs.next()) {
                    got.add(rs.getLong(1) + "/" + rs.getLong(2));
                    JsonNode w = writtenByStart.get(pids.get(rank) + "@" + (rs.getLong(1) - base));
                    assertNotNull(w, "a written event at " + rs.getLong(1));
                    assertEquals(w.get("name").asText(), rs.getString(3));
                }
            }
            Collections.sort(want);
            Collections.sort(got);
            assertEquals(want.size(), got.size(), "rank " + rank + ": GPU operations of the steps");
            assertEquals(want, got, "rank " + rank + ": starts (aligned) and durations");

            // names: the raw trace's full name in args, the display name a category and a part of it
            for (GpuEvent e : expected) {
                JsonNode w = writtenByStart.get(pids.get(rank) + "@" + (e.tsNs() - offsets.get(rank) - base));
                assertEquals(e.name(), w.at("/args/kernel").asText(), "full name in args");
                String display = w.get("name").asText();
                String category = w.at("/args/category").asText();
                assertTrue(display.startsWith(category + ": "), display);
                String shortName = display.substring(category.length() + 2);
                assertTrue(e.name().replaceAll("\\s+", " ").contains(shortName), display + " from " + e.name());
                assertEquals(e.durNs(), nanos(w.at("/args/duration_us")));
            }
        }
    }

    /**
     * Rank 1 arrives late at the decode all-reduces of this capture. Worked out from the raw traces (the
     * k-th collective kernel of each rank in a step is one instance; the shorter one arrived last), the
     * late rank's kernel starts later in the file, and the wait part is on the other rank's kernel only.
     */
    @Test
    void lateRankStartsLaterAndTheOtherWaits() throws Exception {
        Map<Integer, Integer> pids = pidOfRank();
        Map<Integer, List<List<GpuEvent>>> collectives = new HashMap<>();
        for (int rank : oracle.keySet()) {
            List<List<GpuEvent>> steps = new ArrayList<>();
            for (int step : STEPS) {
                List<GpuEvent> list = new ArrayList<>(oracle.get(rank).get(FIRST_DECODE_PROFILER_STEP + step).stream()
                        .filter(e -> e.cat().equals("kernel") && e.name().startsWith("nccl")).toList());
                list.sort((a, b) -> Long.compare(a.tsNs(), b.tsNs()));
                steps.add(list);
            }
            collectives.put(rank, steps);
        }
        Map<String, JsonNode> written = new HashMap<>();
        Map<String, List<JsonNode>> parts = new HashMap<>();
        long base = doc.get("baseTimeNanoseconds").asLong();
        Map<Integer, Long> offsets = new HashMap<>();
        doc.at("/steptrace/alignment/ranks").forEach(r -> offsets.put(r.get("rank").asInt(), r.get("offset_ns").asLong()));
        events().filter(e -> e.path("cat").asText().equals("kernel"))
                .forEach(e -> written.put(e.get("pid").asInt() + "@" + nanos(e.get("ts")), e));
        events().filter(e -> e.path("cat").asText().equals("collective"))
                .forEach(e -> parts.computeIfAbsent(e.get("pid").asInt() + "@" + nanos(e.get("ts")), k -> new ArrayList<>())
                        .add(e));
        int late1 = 0;
        int instances = 0;
        for (int s = 0; s < STEPS.size(); s++) {
            List<GpuEvent> r0 = collectives.get(0).get(s);
            List<GpuEvent> r1 = collectives.get(1).get(s);
            assertEquals(r0.size(), r1.size(), "collectives per step");
            for (int k = 0; k < r0.size(); k++) {
                GpuEvent a = r0.get(k);
                GpuEvent b = r1.get(k);
                if (Math.abs(a.durNs() - b.durNs()) < 1_000) {
                    continue; // arrived within a microsecond: no clear late rank
                }
                instances++;
                int late = b.durNs() < a.durNs() ? 1 : 0;
                late1 += late;
                GpuEvent lateEvent = late == 1 ? b : a;
                GpuEvent early = late == 1 ? a : b;
                int earlyRank = 1 - late;
                JsonNode lateSlice = written.get(pids.get(late) + "@" + (lateEvent.tsNs() - offsets.get(late) - base));
                JsonNode earlySlice = written.get(pids.get(earlyRank) + "@" + (early.tsNs() - offsets.get(earlyRank) - base));
                assertNotNull(lateSlice);
                assertNotNull(earlySlice);
                assertTrue(nanos(lateSlice.get("ts")) > nanos(earlySlice.get("ts")), "the late rank starts later: "
                        + lateSlice + " vs " + earlySlice);
                // wait parts: on the early rank, its time beyond the late rank's duration; none on the late rank
                List<JsonNode> earlyParts = parts.get(earlySlice.get("pid").asInt() + "@" + nanos(earlySlice.get("ts")));
                JsonNode wait = earlyParts.stream().filter(p -> p.get("name").asText().equals("wait")).findFirst().orElseThrow();
                assertEquals(early.durNs() - lateEvent.durNs(), nanos(wait.get("dur")), "wait = duration beyond the fastest");
                List<JsonNode> lateParts = parts.getOrDefault(lateSlice.get("pid").asInt() + "@" + nanos(lateSlice.get("ts")),
                        List.of());
                assertTrue(lateParts.stream().noneMatch(p -> p.get("name").asText().equals("wait")), "no wait on the late rank");
                assertEquals(lateEvent.durNs(), lateParts.stream().filter(p -> p.get("name").asText().equals("transfer"))
                        .mapToLong(p -> nanos(p.get("dur"))).sum(), "the late rank's kernel is all transfer");
            }
        }
        assertTrue(instances > 100, "instances with a clear late rank: " + instances);
        assertTrue(late1 > instances / 2, "rank 1 is the late one at most instances: " + late1 + " of " + instances);
    }

    @Test
    void eachStepsCriticalPathCoversItsWindow() throws Exception {
        // Decode step 3 (ProfilerStep#6) runs on each rank from its annotation's start to ProfilerStep#7's, from the
        // raw trace; its critical-path track covers that window, segment after segment, without overlaps.
        Map<Integer, Integer> pids = pidOfRank();
        for (Path trace : TestData.kinetoTraces(capture)) {
            int rank = Integer.parseInt(trace.getFileName().toString().substring(4, 5));
            Map<String, Long> starts = new HashMap<>();
            try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
                JSON.readTree(in).get("traceEvents").forEach(e -> {
                    if (e.path("name").asText().matches("ProfilerStep#[67]") && e.path("cat").asText().equals("user_annotation")) {
                        starts.put(e.get("name").asText(), nanos(e.get("ts")));
                    }
                });
            }
            long window = starts.get("ProfilerStep#7") - starts.get("ProfilerStep#6");
            List<JsonNode> path = events().filter(e -> e.path("cat").asText().equals("critical_path")
                    && e.get("pid").asInt() == pids.get(rank) && e.at("/args/step").asInt() == 3)
                    .sorted(Comparator.comparing(e -> e.get("ts").decimalValue())).toList();
            assertTrue(path.size() > 100, "rank " + rank + ": " + path.size() + " segments");
            long sum = 0;
            for (int i = 0; i < path.size(); i++) {
                sum += nanos(path.get(i).get("dur"));
                if (i > 0) {
                    long end = nanos(path.get(i - 1).get("ts")) + nanos(path.get(i - 1).get("dur"));
                    assertTrue(nanos(path.get(i).get("ts")) >= end - 1_000, "rank " + rank + " overlap at " + path.get(i));
                }
            }
            assertEquals(window, sum, 0.01 * window, "rank " + rank);
        }
    }

    @Test
    void commandOutputReportsTheOffsets() {
        assertTrue(written.err().contains("clocks aligned on collective end times, to rank 0's"), written::describe);
        long offset = doc.at("/steptrace/alignment/ranks/1/offset_ns").asLong();
        assertTrue(written.err().contains(String.format(java.util.Locale.ROOT, "rank 1 %+.1f µs", offset / 1e3)),
                written::describe);
        // one host: the ends of the decode all-reduces agree to well under a microsecond
        assertTrue(Math.abs(offset) < 1_000, "offset " + offset);
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asInt()));
        return out;
    }
}
