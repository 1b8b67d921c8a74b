package dev.steptrace.synth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.ingest.kineto.EventKind;
import dev.steptrace.ingest.kineto.KinetoReader;
import dev.steptrace.ingest.kineto.NameDictionary;
import dev.steptrace.ingest.kineto.ReadResult;
import dev.steptrace.ingest.kineto.TraceEvent;
import dev.steptrace.ingest.kineto.TraceEventSink;
import dev.steptrace.classify.Category;
import dev.steptrace.synth.model.Preset;
import dev.steptrace.synth.model.WorkloadConfig;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * Checks synthetic captures against their EXPECTED.json with values recomputed from the JSON alone:
 * a full Jackson tree per file (small files), kernels attributed to steps through their launch's
 * correlation, categories from the rules of docs/reference/kernel-names.md, times parsed from the decimal
 * text. Nothing here reads the generator's own bookkeeping.
 */
class SynthTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final String DECODE = "execute_context_0(0)_generation_1(1)";
    private static final String PREFILL = "execute_context_1(2048)_generation_0(0)";
    private static final double EXACT_MS = 1e-9;

    @TempDir
    static Path tmp;

    private static Path graphPlain;
    private static Path graphGzip;
    private static Path eager;
    private static List<Trace> graphTraces;
    private static List<Trace> eagerTraces;

    @BeforeAll
    static void generate() throws Exception {
        graphPlain = synth("graph-plain", Preset.MOE_TP8_GRAPH, 3, 1, 7, false, Map.of(), 0);
        graphGzip = synth("graph-gzip", Preset.MOE_TP8_GRAPH, 3, 1, 7, true, Map.of(), 0);
        eager = synth("eager", Preset.MOE_TP8_EAGER, 2, 1, 7, false, Map.of(), 0);
        graphTraces = parseAll(graphPlain);
        eagerTraces = parseAll(eager);
    }

    @Test
    void categoryTimesAndCallsRecomputedFromTheJsonMatchExpected() throws IOException {
        checkAgainstExpected(graphPlain, graphTraces);
        checkAgainstExpected(eager, eagerTraces);
    }

    @Test
    void gzipHoldsTheSameJsonAsPlain() throws IOException {
        List<Path> plain = traceFiles(graphPlain);
        List<Path> gz = traceFiles(graphGzip);
        assertEquals(2, gz.size());
        for (int i = 0; i < plain.size(); i++) {
            assertTrue(gz.get(i).toString().endsWith(".pt.trace.json.gz"));
            assertArrayEquals(Files.readAllBytes(plain.get(i)), read(gz.get(i)), "rank " + i);
        }
        JsonNode a = expected(graphPlain);
        JsonNode b = expected(graphGzip);
        assertEquals(a.get("phases"), b.get("phases"));
        assertEquals(a.get("kernels"), b.get("kernels"));
    }

    @Test
    void graphReplayKernelsShareTheLaunchCorrelationAndHaveNoExternalId() throws IOException {
        JsonNode expected = expected(graphPlain).get("phases").get("decode");
        long kernelsPerStep = 0;
        for (JsonNode c : expected.get("categories")) {
            if (!c.get("id").asText().equals("memcpy")) {
                kernelsPerStep += c.get("calls_per_step").asLong();
            }
        }
        for (Trace t : graphTraces) {
            int steps = 0;
            for (Ev step : t.named("user_annotation", DECODE)) {
                steps++;
                List<Ev> launches = t.cpuCallsIn(step).stream().filter(c -> c.name.equals("cudaGraphLaunch")).toList();
                assertEquals(1, launches.size(), "one graph launch per decode step");
                Ev launch = launches.get(0);
                assertEquals(311, launch.args.get("cbid").asInt());
                assertFalse(launch.args.has("External id"));
                long corr = launch.args.get("correlation").asLong();
                List<Ev> replay = t.gpuByCorrelation.getOrDefault(corr, List.of());
                assertEquals(kernelsPerStep, replay.size(), "every kernel of the replay carries the launch's correlation");
                Set<Long> nodes = new HashSet<>();
                for (Ev k : replay) {
                    assertEquals("kernel", k.cat);
                    assertFalse(k.args.has("External id"), k.name);
                    assertTrue(k.args.has("graph id"));
                    nodes.add(k.args.get("graph node id").asLong());
                }
                assertEquals(replay.size(), nodes.size(), "distinct graph nodes");
                // The sampled ids come back through an eager memcpy from an aten::copy_.
                List<Ev> copies = t.cpuCallsIn(step).stream().filter(c -> c.name.equals("cudaMemcpyAsync")).toList();
                assertEquals(1, copies.size());
                Ev memcpy = t.gpuByCorrelation.get(copies.get(0).args.get("correlation").asLong()).get(0);
                assertEquals("gpu_memcpy", memcpy.cat);
                assertEquals("Memcpy DtoH (Device -> Pinned)", memcpy.name);
                assertEquals("aten::copy_", t.opsByExternal.get(memcpy.args.get("External id").asLong()).name);
            }
            assertEquals(3, steps);
        }
    }

    @Test
    void stepAnnotationsNameThePhases() throws IOException {
        for (Trace t : graphTraces) {
            assertEquals(3, t.named("user_annotation", DECODE).size());
            assertEquals(3, t.named("gpu_user_annotation", DECODE).size());
            assertEquals(1, t.named("user_annotation", PREFILL).size());
            assertEquals(1, t.named("gpu_user_annotation", PREFILL).size());
        }
        JsonNode phases = expected(graphPlain).get("phases");
        assertEquals(3, phases.get("decode").get("steps").asInt());
        assertEquals(DECODE, phases.get("decode").get("annotation").asText());
        assertEquals(1, phases.get("prefill").get("steps").asInt());
        assertEquals(PREFILL, phases.get("prefill").get("annotation").asText());
    }

    @Test
    void eagerKernelsLinkToTheirLaunchAndCpuOp() {
        for (Trace t : eagerTraces) {
            int driver = 0;
            for (Ev g : t.gpu) {
                long corr = g.args.get("correlation").asLong();
                List<Ev> calls = t.callsByCorrelation.get(corr);
                assertNotNull(calls, "launch of " + g.name);
                assertEquals(1, calls.size());
                Ev call = calls.get(0);
                assertTrue(call.ts < g.ts, "launched before it runs");
                long ext = g.args.get("External id").asLong();
                assertEquals(ext, call.args.get("External id").asLong());
                Ev op = t.opsByExternal.get(ext);
                assertNotNull(op, "cpu_op with External id " + ext);
                assertEquals("cpu_op", op.cat);
                assertTrue(op.ts <= call.ts && call.ts + call.dur <= op.ts + op.dur, "launch inside its op");
                if (g.name.startsWith("_fwd_")) {
                    assertEquals("cuda_driver", call.cat);
                    assertEquals("cuLaunchKernel", call.name);
                    driver++;
                }
            }
            assertTrue(driver > 0, "Triton kernels go through the driver API");
        }
    }

    @Test
    void ncclKernelsCarryTheirRecordParamCommsMetadata() {
        boolean aboveSignedRange = false;
        for (Trace t : eagerTraces) {
            long expectedSeq = 0;
            int nccl = 0;
            for (Ev g : t.gpu) {
                if (!g.name.startsWith("ncclDevKernel_AllReduce")) {
                    continue;
                }
                nccl++;
                Ev comms = t.opsByExternal.get(g.args.get("External id").asLong());
                assertEquals("record_param_comms", comms.name);
                JsonNode a = comms.args;
                assertEquals("allreduce", a.get("Collective name").asText());
                assertEquals("BFloat16", a.get("dtype").asText());
                assertEquals(2, a.get("Group size").asInt());
                assertEquals("[0, 1]", a.get("Process Group Ranks").asText());
                assertEquals("default_pg", a.get("Process Group Description").asText());
                assertEquals("[]", a.get("In split size").asText());
                assertEquals(t.rank, a.get("Rank").asInt());
                boolean decode = g.ts > t.named("user_annotation", DECODE).get(0).ts;
                assertEquals(7168L * (decode ? 1 : 2048), a.get("In msg nelems").asLong());
                assertEquals(expectedSeq++, a.get("Seq").asLong());
                BigInteger commsId = a.get("Comms Id").bigIntegerValue();
                aboveSignedRange |= commsId.bitLength() == 64;
                for (String key : List.of("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
                        "In split size", "Out split size", "Process Group Name", "Process Group Description",
                        "Process Group Ranks", "Seq", "Comms Id")) {
                    assertEquals(a.get(key), g.args.get(key), key + " copied to the kernel");
                }
            }
            assertEquals(127 + 2 * 5, nccl);
        }
        assertTrue(aboveSignedRange, "some Comms Id above 2^63");
    }

    @Test
    void collectiveWaitAndTransferFollowTheSpecDefinition() throws IOException {
        // transfer = the fastest rank's duration of an instance, wait = the rest; instances matched by order.
        List<List<Long>> perRank = new ArrayList<>();
        for (Trace t : graphTraces) {
            List<Long> durs = new ArrayList<>();
            for (Ev g : t.gpu) {
                if (t.phaseOf(g).equals("decode") && classify(g).equals("allreduce")) {
                    durs.add(g.dur);
                }
            }
            perRank.add(durs);
        }
        long transfer = 0;
        long waits = 0;
        boolean ranksDiffer = false;
        for (int i = 0; i < perRank.get(0).size(); i++) {
            long a = perRank.get(0).get(i);
            long b = perRank.get(1).get(i);
            transfer += Math.min(a, b);
            waits += Math.max(a, b) - Math.min(a, b);
            ranksDiffer |= a != b;
        }
        assertTrue(ranksDiffer);
        JsonNode coll = expected(graphPlain).get("phases").get("decode").get("collectives").get(0);
        assertEquals("allreduce", coll.get("type").asText());
        assertEquals(127, coll.get("calls_per_step").asInt());
        assertEquals(transfer / 1e6 / 3, coll.get("transfer_ms_per_step").asDouble(), EXACT_MS);
        assertEquals(waits / 2.0 / 1e6 / 3, coll.get("wait_ms_per_step").asDouble(), EXACT_MS);
    }

    @Test
    void sameSeedGivesIdenticalBytesAndAnotherSeedDoesNot() throws Exception {
        Path a = synth("seed-a", Preset.MOE_TP8_GRAPH, 1, 0, 11, true, Map.of(), 0);
        Path b = synth("seed-b", Preset.MOE_TP8_GRAPH, 1, 0, 11, true, Map.of(), 0);
        Path c = synth("seed-c", Preset.MOE_TP8_GRAPH, 1, 0, 12, true, Map.of(), 0);
        List<Path> fa = traceFiles(a);
        List<Path> fb = traceFiles(b);
        List<Path> fc = traceFiles(c);
        for (int i = 0; i < fa.size(); i++) {
            assertEquals(fa.get(i).getFileName(), fb.get(i).getFileName());
            assertArrayEquals(Files.readAllBytes(fa.get(i)), Files.readAllBytes(fb.get(i)));
            assertFalse(java.util.Arrays.equals(read(fa.get(i)), read(fc.get(i))));
        }
        assertArrayEquals(Files.readAllBytes(a.resolve("EXPECTED.json")), Files.readAllBytes(b.resolve("EXPECTED.json")));
    }

    @Test
    void targetSizeAddsDecodeStepsUntilEveryFileIsLargeEnough() throws Exception {
        long target = 5_000_000;
        Path dir = synth("target", Preset.MOE_TP8_GRAPH, 1, 0, 3, false, Map.of(), target);
        JsonNode expected = expected(dir);
        int steps = expected.get("phases").get("decode").get("steps").asInt();
        assertTrue(steps > 1);
        long perStep = 0;
        for (JsonNode f : expected.get("files")) {
            long size = Files.size(dir.resolve(f.get("file").asText()));
            assertTrue(size >= target, size + " bytes");
            assertEquals(size, f.get("json_bytes").asLong());
            perStep = size / steps;
        }
        for (Path f : traceFiles(dir)) {
            assertTrue(Files.size(f) < target + 3 * perStep, "not far beyond the target");
        }
    }

    @Test
    void scaleMultipliesOneCategoryAndLeavesTheOthers() throws Exception {
        Path scaled = synth("scaled", Preset.MOE_TP8_GRAPH, 3, 1, 7, false, Map.of(Category.ATTENTION, 1.2), 0);
        JsonNode base = expected(graphPlain).get("phases");
        JsonNode after = expected(scaled).get("phases");
        assertEquals(1.2, expected(scaled).get("scales").get("attention").asDouble());
        for (String phase : List.of("decode", "prefill")) {
            Map<String, JsonNode> b = byId(base.get(phase).get("categories"));
            Map<String, JsonNode> a = byId(after.get(phase).get("categories"));
            assertEquals(b.keySet(), a.keySet());
            for (String id : b.keySet()) {
                double before = b.get(id).get("ms_per_step").asDouble();
                double now = a.get(id).get("ms_per_step").asDouble();
                long calls = b.get(id).get("calls_per_step").asLong();
                assertEquals(calls, a.get(id).get("calls_per_step").asLong());
                // Every duration is rounded to a whole nanosecond: at most 1 ns of difference per call.
                double rounding = calls * 1e-6;
                assertEquals(id.equals("attention") ? 1.2 * before : before, now, rounding, phase + " " + id);
            }
        }
        checkAgainstExpected(scaled, parseAll(scaled));
    }

    @Test
    void timestampsAreMicrosecondsWithThreeDecimalsRelativeToAQuarterBase() throws IOException {
        String text = Files.readString(traceFiles(graphPlain).get(0), StandardCharsets.UTF_8);
        Matcher any = Pattern.compile("\"(ts|dur)\": ([^,\\n]*)").matcher(text);
        int count = 0;
        while (any.find()) {
            assertTrue(any.group(2).matches("\\d{1,13}\\.\\d{3}"), any.group());
            count++;
        }
        assertTrue(count > 10_000);
        JsonNode root = JSON.readTree(text);
        long base = root.get("baseTimeNanoseconds").asLong();
        assertEquals(0, base % (7_889_238L * 1_000_000_000L), "a 3-month bucket");
        assertEquals("ms", root.get("displayTimeUnit").asText());
        assertTrue(text.startsWith("\n  {\n    \"schemaVersion\": 1,\n    \"deviceProperties\": [\n"));
        assertTrue(text.endsWith("\"\n}\n"));
        List<String> keys = new ArrayList<>();
        root.fieldNames().forEachRemaining(keys::add);
        assertEquals("traceName", keys.get(keys.size() - 1));
        assertEquals(8, root.get("deviceProperties").size());
        assertEquals(12, root.get("deviceProperties").get(0).get("computeMajor").asInt());
        JsonNode dist = root.get("distributedInfo");
        assertEquals("nccl", dist.get("backend").asText());
        assertEquals(2, dist.get("world_size").asInt());
        JsonNode events = root.get("traceEvents");
        assertEquals("Record Window End", events.get(events.size() - 1).get("name").asText());
    }

    @Test
    void kernelNamesIncludeCppTemplatesWithAmpersands() throws IOException {
        boolean found = false;
        for (JsonNode k : expected(graphPlain).get("kernels")) {
            String name = k.get("name").asText();
            found |= name.contains("<") && name.contains(">") && name.contains("&");
        }
        assertTrue(found);
    }

    @Test
    void theStreamingReaderReadsEveryEventWithoutDamage() throws IOException {
        for (Path file : traceFiles(graphGzip)) {
            long[] kernelNs = new long[1];
            TraceEventSink sink = new TraceEventSink() {
                @Override
                public void event(TraceEvent e) {
                    if (e.kind == EventKind.KERNEL || e.kind == EventKind.MEMCPY) {
                        kernelNs[0] += e.durNs;
                    }
                }

                @Override
                public void baseTimeNanos(long baseNs, boolean beforeEvents) {
                    assertTrue(beforeEvents);
                }

                @Override
                public void distributedInfo(String json, Integer rank, Integer worldSize) {
                    assertEquals(2, worldSize);
                }
            };
            ReadResult result;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                result = new KinetoReader(false).read(in, new NameDictionary(), sink);
            }
            assertFalse(result.partial(), result.damageReason());
            // The comms ids above 2^63 are there on purpose; nothing else may be out of range.
            assertEquals(Set.of("ids_above_2^63_kept_as_unsigned"), result.anomalies().keySet());
            Trace t = graphTraces.get(rankOf(file));
            assertEquals(t.gpu.size(), result.kept(EventKind.KERNEL) + result.kept(EventKind.MEMCPY));
            assertEquals(t.gpu.stream().mapToLong(Ev::dur).sum(), kernelNs[0]);
        }
    }

    @Test
    void clocksOfTheRanksStartWithinMicroseconds() {
        long a = graphTraces.get(0).named("user_annotation", PREFILL).get(0).ts;
        long b = graphTraces.get(1).named("user_annotation", PREFILL).get(0).ts;
        assertTrue(Math.abs(a - b) < 10_000, Math.abs(a - b) + " ns");
    }

    // --- recomputation ---

    private static void checkAgainstExpected(Path dir, List<Trace> traces) throws IOException {
        JsonNode expected = expected(dir);
        Map<String, String> expectedCategory = new HashMap<>();
        for (JsonNode k : expected.get("kernels")) {
            expectedCategory.put(k.get("name").asText(), k.get("category").asText());
        }
        for (String phase : List.of("decode", "prefill")) {
            JsonNode p = expected.get("phases").get(phase);
            Map<String, double[]> mean = new TreeMap<>();
            double kernelMs = 0;
            for (Trace t : traces) {
                Map<String, long[]> sums = new TreeMap<>();
                long total = 0;
                for (Ev g : t.gpu) {
                    if (!t.phaseOf(g).equals(phase)) {
                        continue;
                    }
                    String category = classify(g);
                    if (!g.cat.equals("gpu_memcpy")) {
                        assertEquals(expectedCategory.get(g.name), category, g.name);
                    }
                    long[] s = sums.computeIfAbsent(category, k -> new long[2]);
                    s[0] += g.dur;
                    s[1]++;
                    total += g.dur;
                }
                int steps = t.named("user_annotation", phase.equals("decode") ? DECODE : PREFILL).size();
                assertEquals(p.get("steps").asInt(), steps);
                JsonNode rank = p.get("per_rank").get(t.rank);
                assertEquals(t.rank, rank.get("rank").asInt());
                assertEquals(total / 1e6 / steps, rank.get("kernel_ms_per_step").asDouble(), EXACT_MS);
                kernelMs += total / 1e6 / steps / traces.size();
                for (Map.Entry<String, long[]> e : sums.entrySet()) {
                    JsonNode c = rank.get("categories").get(e.getKey());
                    assertEquals(e.getValue()[0] / 1e6 / steps, c.get("ms_per_step").asDouble(), EXACT_MS);
                    assertEquals(e.getValue()[1] / steps, c.get("calls_per_step").asLong());
                    double[] m = mean.computeIfAbsent(e.getKey(), k -> new double[2]);
                    m[0] += e.getValue()[0] / 1e6 / steps / traces.size();
                    m[1] += (double) e.getValue()[1] / steps / traces.size();
                }
            }
            assertEquals(kernelMs, p.get("kernel_ms_per_step").asDouble(), EXACT_MS);
            Map<String, JsonNode> categories = byId(p.get("categories"));
            assertEquals(mean.keySet(), categories.keySet());
            for (Map.Entry<String, double[]> e : mean.entrySet()) {
                JsonNode c = categories.get(e.getKey());
                assertEquals(e.getValue()[0], c.get("ms_per_step").asDouble(), EXACT_MS, phase + " " + e.getKey());
                assertEquals(e.getValue()[1], c.get("calls_per_step").asDouble(), 0.0, phase + " " + e.getKey());
            }
        }
        List<String> order = new ArrayList<>();
        expected.get("phases").get("decode").get("categories").forEach(c -> order.add(c.get("id").asText()));
        assertEquals(List.of("allreduce", "attention", "moe_gemm", "gemm", "routing", "memcpy", "other"), order,
                "category order");
        Map<String, JsonNode> decode = byId(expected.get("phases").get("decode").get("categories"));
        assertEquals(127, decode.get("allreduce").get("calls_per_step").asInt());
        assertEquals(122, decode.get("allreduce").get("subcategories").get("custom").get("calls_per_step").asInt());
        assertEquals(5, decode.get("allreduce").get("subcategories").get("nccl").get("calls_per_step").asInt());
        assertEquals(122, decode.get("moe_gemm").get("calls_per_step").asInt());
    }

    /** The category rules of docs/reference/kernel-names.md section 2, reduced to what steptrace's presets use. */
    private static String classify(Ev g) {
        if (g.cat.equals("gpu_memcpy")) {
            return "memcpy";
        }
        String n = g.name;
        if (find("\\bnccl(Dev)?Kernel_AllReduce|cross_device_reduce_(1stage|2stage|half_butterfly)", n)) {
            return "allreduce";
        }
        if (find("\\bnccl(Dev)?Kernel_|ncclSymk?DevKernel_", n)) {
            return "comm_other";
        }
        if (find("marlin_moe_wna16::|MarlinMoE|^fused_moe_kernel|moe_wna16_gemm|GroupProblemShape|MoeFCGemm", n)) {
            return "moe_gemm";
        }
        if (find("topkGating|moeSoftmax|moeTopK|grouped_topk|moe_align_block_size|count_and_sort_expert_tokens|moe_sum", n)) {
            return "routing";
        }
        if (find("flash_fwd_|FlashAttnFwd|(Batch|Single)(Decode|Prefill)With|BatchMLAPag|^_fwd_(grouped_)?kernel_stage[12]", n)) {
            return "attention";
        }
        if (find("marlin::Marlin|gemm|Gemm|gemv|nvjet|xmma|splitKreduce|cutlass|cublas", n)) {
            return "gemm";
        }
        return "other";
    }

    private static boolean find(String regex, String s) {
        return Pattern.compile(regex).matcher(s).find();
    }

    // --- helpers ---

    private static Path synth(String name, Preset preset, int steps, int prefill, long seed, boolean gzip,
                              Map<Category, Double> scales, long target) throws Exception {
        Path dir = tmp.resolve(name);
        SynthConfig config = new SynthConfig(new WorkloadConfig(preset, 2, 1, seed, scales), steps, prefill, target, gzip, dir);
        Synthesizer s = new Synthesizer(config);
        s.write(s.plan());
        return dir;
    }

    private static JsonNode expected(Path dir) throws IOException {
        return JSON.readTree(dir.resolve("EXPECTED.json").toFile());
    }

    private static Map<String, JsonNode> byId(JsonNode categories) {
        Map<String, JsonNode> m = new TreeMap<>();
        categories.forEach(c -> m.put(c.get("id").asText(), c));
        return m;
    }

    private static List<Path> traceFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().contains(".pt.trace.json")).sorted(
                    (x, y) -> Integer.compare(rankOf(x), rankOf(y))).toList();
        }
    }

    private static int rankOf(Path p) {
        Matcher m = Pattern.compile("_rank(\\d+)\\.").matcher(p.getFileName().toString());
        assertTrue(m.find());
        return Integer.parseInt(m.group(1));
    }

    private static byte[] read(Path file) throws IOException {
        try (InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file))
                : Files.newInputStream(file)) {
            return in.readAllBytes();
        }
    }

    private static List<Trace> parseAll(Path dir) throws IOException {
        List<Trace> traces = new ArrayList<>();
        for (Path f : traceFiles(dir)) {
            traces.add(new Trace(rankOf(f), JSON.readTree(read(f))));
        }
        return traces;
    }

    /** One event, times in nanoseconds parsed from the decimal text. */
    private record Ev(String cat, String name, long ts, long dur, JsonNode args) {
    }

    /** One rank's events, indexed the ways the checks need. */
    private static final class Trace {
        final int rank;
        final List<Ev> cpu = new ArrayList<>();
        final List<Ev> gpu = new ArrayList<>();
        final List<Ev> annotations = new ArrayList<>();
        final Map<Long, List<Ev>> callsByCorrelation = new HashMap<>();
        final Map<Long, List<Ev>> gpuByCorrelation = new HashMap<>();
        final Map<Long, Ev> opsByExternal = new HashMap<>();

        Trace(int rank, JsonNode root) {
            this.rank = rank;
            assertEquals(rank, root.get("distributedInfo").get("rank").asInt());
            for (JsonNode e : root.get("traceEvents")) {
                if (!"X".equals(e.path("ph").asText())) {
                    continue;
                }
                String cat = e.get("cat").asText();
                Ev ev = new Ev(cat, e.get("name").asText(), ns(e.get("ts")), ns(e.get("dur")), e.path("args"));
                switch (cat) {
                    case "kernel", "gpu_memcpy" -> {
                        gpu.add(ev);
                        gpuByCorrelation.computeIfAbsent(ev.args.get("correlation").asLong(), k -> new ArrayList<>()).add(ev);
                    }
                    case "cuda_runtime", "cuda_driver" -> {
                        cpu.add(ev);
                        callsByCorrelation.computeIfAbsent(ev.args.get("correlation").asLong(), k -> new ArrayList<>()).add(ev);
                    }
                    case "cpu_op" -> opsByExternal.put(ev.args.get("External id").asLong(), ev);
                    case "user_annotation", "gpu_user_annotation" -> annotations.add(ev);
                    default -> {
                    }
                }
            }
        }

        List<Ev> named(String cat, String name) {
            return annotations.stream().filter(a -> a.cat.equals(cat) && a.name.equals(name)).toList();
        }

        /** Runtime/driver calls made inside a host range. */
        List<Ev> cpuCallsIn(Ev range) {
            return cpu.stream().filter(c -> c.ts >= range.ts && c.ts + c.dur <= range.ts + range.dur).toList();
        }

        /** The phase of the step whose annotation contains the launch of this GPU activity. */
        String phaseOf(Ev g) {
            Ev call = callsByCorrelation.get(g.args.get("correlation").asLong()).get(0);
            for (Ev a : annotations) {
                if (a.cat.equals("user_annotation") && a.name.startsWith("execute_context_")
                        && a.ts <= call.ts && call.ts <= a.ts + a.dur) {
                    return a.name.equals(DECODE) ? "decode" : "prefill";
                }
            }
            throw new AssertionError("no step contains the launch of " + g.name);
        }

        private static long ns(JsonNode decimal) {
            assertTrue(decimal.isBigDecimal(), decimal.toString());
            return decimal.decimalValue().movePointRight(3).longValueExact();
        }
    }
}
