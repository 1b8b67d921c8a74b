package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.ReportJson;
import dev.steptrace.testsupport.RuleEvidence;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real torch.compile(mode="reduce-overhead") capture (real-captures/compile-reduce-overhead, one H100, torch
 * 2.11; tools/gpu-capture/capture_compile.py): eight profiled steps of two compiled regions with an eager op between
 * them (a graph break), whose inputs are not static, so CUDA graph trees copy them before every replay; the batch
 * changes from 8 to 16 at ProfilerStep#5, which recompiles, and ProfilerStep#6 records the new graphs. The expected
 * figures are read from the raw trace here, apart from the analysis.
 */
class CompileCaptureTest {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    @TempDir
    static Path tmp;
    static JsonNode report;
    static Path db;

    @BeforeAll
    static void reportIt() throws Exception {
        Path dir = TestData.realCaptures().resolve("compile-reduce-overhead");
        db = tmp.resolve("compile.duckdb");
        Path out = tmp.resolve("out");
        assertEquals(0, Main.run("report", dir.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "--quiet"));
        report = JSON.readTree(out.resolve("report.json").toFile());
    }

    /**
     * The graph input copies are the largest part of the GPU time of the steps that replay CUDA graphs, and the
     * report says so with the rule id and its evidence. Raw trace: the GPU operations launched inside
     * aten::_foreach_copy_, against every GPU operation launched in a ProfilerStep that holds a cudaGraphLaunch (a
     * replay's kernels share the launch's correlation id).
     */
    @Test
    void graphInputCopiesAreTheLargestPartOfTheGraphSteps() throws Exception {
        Raw raw = Raw.read(trace());
        long copyNs = 0;
        long allNs = 0;
        for (Raw.Op op : raw.gpuOps) {
            Raw.Range launch = raw.launches.get(op.correlation());
            if (launch == null) {
                continue;
            }
            Raw.Range step = raw.enclosing(raw.steps, launch);
            if (step == null || !raw.stepsWithGraphLaunches.contains(step)) {
                continue;
            }
            allNs += op.durNs();
            if (raw.enclosing(raw.foreachCopies, launch) != null) {
                copyNs += op.durNs();
            }
        }
        double pct = 100.0 * copyNs / allNs;
        assertTrue(pct > 50, "the capture's copies are most of the graph steps' GPU time: " + pct);

        JsonNode phase = report.at("/phases/unknown");
        assertEquals("memcpy", phase.at("/categories/0/id").asText(), "the copies' category is the largest");
        assertEquals("graph_input_copy", phase.at("/categories/0/subcategories/0/id").asText());
        JsonNode w = ReportJson.warning(report, "graph_input_copies");
        String m = w.get("message").asText();
        Matcher share = Pattern.compile("take ([0-9.]+)% of the GPU time of the (\\d+) step\\(s\\) that replay CUDA graphs,"
                + " its largest part").matcher(m);
        assertTrue(share.find(), m);
        assertEquals(pct, Double.parseDouble(share.group(1)), 0.06, m);
        assertEquals(raw.stepsWithGraphLaunches.size(), Integer.parseInt(share.group(2)), m);
        assertTrue(m.contains("launched by aten::_foreach_copy_") && m.contains("mark_static_address"), m);
        try (Connection c = DuckDb.connect(db, new java.util.Properties())) {
            List<String> rows = RuleEvidence.rows(c, w.get("evidence").asText());
            assertEquals(1, rows.size(), rows.toString());
            String[] f = rows.get(0).split("\\|");
            assertEquals("unknown", f[0]);
            assertEquals("aten::_foreach_copy_", f[1]);
            assertEquals(copyNs, Long.parseLong(f[2]));
            assertEquals(allNs, Long.parseLong(f[4]));
        }
    }

    /**
     * Neither the graph input copies nor any compile rule fires on the sample captures (CUDA graphs replayed with their
     * inputs in place, without torch.compile).
     */
    @ParameterizedTest
    @ValueSource(strings = {"h200-tp2-moe-decode/graph-nccl-ll", "h200-tp2-moe-decode/graph-nccl-simple"})
    void noGraphOrCompileFindingOnTheSamples(String capture) throws Exception {
        TestData.sharedOrSkip();
        Path out = tmp.resolve("out-" + capture.replace('/', '-'));
        assertEquals(0, Main.run("report", TestData.sampleTraces().resolve(capture).toString(), "--db",
                tmp.resolve("samples.duckdb").toString(), "--out", out.toString(), "--format", "json", "--quiet"));
        List<String> codes = ReportJson.warningCodes(JSON.readTree(out.resolve("report.json").toFile()));
        for (String code : List.of("graph_input_copies", "graph_recording", "recompiles", "graph_breaks")) {
            assertFalse(codes.contains(code), codes.toString());
        }
    }

    /**
     * The real capture recorded new CUDA graphs in one step, recompiled in one and broke its graph in every step; the
     * steps are found in the raw trace: those whose range holds a cudaStreamBeginCapture call, an
     * entire_frame_compile range, and a Torch-Compiled Region entered inside another one.
     */
    @Test
    void recordingRecompileAndBreaksOfTheRealCapture() throws Exception {
        Raw raw = Raw.read(trace());
        List<String> recording = new ArrayList<>();
        List<String> compiling = new ArrayList<>();
        List<String> breaking = new ArrayList<>();
        for (Raw.Range step : raw.steps) {
            if (raw.runtime.stream().anyMatch(c -> c.name().equals("cudaStreamBeginCapture") && Raw.inside(step, c))) {
                recording.add(step.name());
            }
            if (raw.cpuOps.stream().anyMatch(c -> c.name().equals("entire_frame_compile") && Raw.inside(step, c))) {
                compiling.add(step.name());
            }
            List<Raw.Range> regions = raw.cpuOps.stream()
                    .filter(c -> c.name().startsWith("Torch-Compiled Region: ") && Raw.inside(step, c)).toList();
            if (regions.stream().anyMatch(i -> regions.stream().anyMatch(o -> o != i && Raw.inside(o, i)
                    && o.startNs() < i.startNs()))) {
                breaking.add(step.name());
            }
        }
        assertEquals(List.of("ProfilerStep#6"), recording, "the batch-16 graphs are recorded the step after the recompile");
        assertEquals(List.of("ProfilerStep#5"), compiling, "the batch changes at ProfilerStep#5");
        assertEquals(raw.steps.size(), breaking.size(), "a graph break every step");

        String rec = ReportJson.warning(report, "graph_recording").get("message").asText();
        assertTrue(rec.contains("in 1 captured step(s) (ProfilerStep#6") && rec.contains("cudaStreamBeginCapture x2")
                && rec.contains("CUDAGraphNode.record"), rec);
        String re = ReportJson.warning(report, "recompiles").get("message").asText();
        assertTrue(re.contains("in 1 captured step(s) (ProfilerStep#5") && re.contains("entire_frame_compile x2")
                && re.contains("new compiled regions Torch-Compiled Region: 0/1, Torch-Compiled Region: 1/1")
                && re.contains("TORCH_LOGS=recompiles"), re);
        String br = ReportJson.warning(report, "graph_breaks").get("message").asText();
        assertTrue(br.contains("in " + breaking.size() + " of " + raw.steps.size() + " step(s)")
                && br.contains("Torch-Compiled Region: 1/0 x4, Torch-Compiled Region: 1/1 x4") && br.contains("fullgraph=True"), br);
        try (Connection c = DuckDb.connect(db, new java.util.Properties())) {
            for (String code : List.of("graph_recording", "recompiles", "graph_breaks")) {
                assertFalse(RuleEvidence.rows(c, ReportJson.warning(report, code).get("evidence").asText()).isEmpty(), code);
            }
        }
    }

    /**
     * Hand-made steps (µs): steps 1 and 2 enter Torch-Compiled Region 0/0 [10, 60) and 1/0 [100, 150), one after the
     * other, with an eager aten::mul [70, 80) launching a 7 µs kernel between them; step 2 also recompiles
     * (entire_frame_compile [1005, 1009), then Torch-Compiled Region 0/1 instead of 0/0) and records a graph
     * (cudaStreamBeginCapture, cudaGraphInstantiateWithFlags). A third capture has one region per step and none of it.
     */
    @Test
    void handMadeCompileSteps() throws Exception {
        dev.steptrace.testsupport.KinetoTrace t = new dev.steptrace.testsupport.KinetoTrace();
        for (int n = 1; n <= 2; n++) {
            double b = (n - 1) * 1000;
            t.step(n, b, 1000);
            if (n == 2) {
                t.range("cpu_op", "entire_frame_compile", b + 5, 4);
            }
            t.range("cpu_op", "Torch-Compiled Region: 0/" + (n - 1), b + 10, 50)
                    .range("cpu_op", "aten::mm", b + 20, 10).kernel("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", 7, b + 30, 20);
            if (n == 2) {
                t.call("cudaStreamBeginCapture", b + 40).call("cudaGraphInstantiateWithFlags", b + 50);
            }
            t.range("cpu_op", "aten::mul", b + 70, 10).kernel("elementwise_mul", 7, b + 80, 7);
            t.range("cpu_op", "Torch-Compiled Region: 1/0", b + 100, 50)
                    .range("cpu_op", "aten::add", b + 110, 10).kernel("elementwise_add", 7, b + 120, 5);
        }
        JsonNode r = report(t, "hand");
        String br = ReportJson.warning(r, "graph_breaks").get("message").asText();
        assertTrue(br.contains("in 2 of 2 step(s)") && br.contains("aten::mul (2 launch(es), 14 µs of GPU time)"), br);
        String re = ReportJson.warning(r, "recompiles").get("message").asText();
        assertTrue(re.contains("(ProfilerStep#2 of rank 0: entire_frame_compile (<0.01 ms); new compiled"
                + " regions Torch-Compiled Region: 0/1)"), re);
        String rec = ReportJson.warning(r, "graph_recording").get("message").asText();
        assertTrue(rec.contains("(ProfilerStep#2 of rank 0: cudaGraphInstantiateWithFlags,"
                + " cudaStreamBeginCapture, in Torch-Compiled Region: 0/1, Torch-Compiled Region: 1/0)"), rec);

        dev.steptrace.testsupport.KinetoTrace clean = new dev.steptrace.testsupport.KinetoTrace();
        for (int n = 1; n <= 2; n++) {
            double b = (n - 1) * 1000;
            clean.step(n, b, 1000);
            clean.range("cpu_op", "Torch-Compiled Region: 0/0", b + 10, 150)
                    .range("cpu_op", "aten::mm", b + 20, 10).kernel("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", 7, b + 30, 20);
            clean.range("cpu_op", "aten::mul", b + 200, 10).kernel("elementwise_mul", 7, b + 210, 7);
        }
        List<String> codes = ReportJson.warningCodes(report(clean, "clean"));
        for (String code : List.of("graph_recording", "recompiles", "graph_breaks", "graph_input_copies")) {
            assertFalse(codes.contains(code), codes.toString());
        }
    }

    /**
     * Real MoE decode captures without torch.compile (one step each, slimmed): CUDA graphs replayed with their inputs
     * in place (moe-graph-b1), and eager steps with an .item() per layer (moe-eager-b1-hostsync, whose raw trace holds
     * the cudaStreamSynchronize calls of those syncs): none of the graph and compile findings.
     */
    @ParameterizedTest
    @ValueSource(strings = {"moe-graph-b1", "moe-eager-b1-hostsync"})
    void noGraphOrCompileFindingOnRealMoeCaptures(String capture) throws Exception {
        Path dir = TestData.realCaptures().resolve(capture);
        if (capture.endsWith("hostsync")) {
            Path file;
            try (var files = Files.list(dir)) {
                file = files.filter(p -> p.toString().endsWith(".pt.trace.json.gz")).findFirst().orElseThrow();
            }
            Raw raw = Raw.read(file);
            assertTrue(raw.runtime.stream().filter(c -> c.name().equals("cudaStreamSynchronize")).count() >= 30,
                    "an .item() per layer");
        }
        Path out = tmp.resolve("out3-" + capture);
        assertEquals(0, Main.run("report", dir.toString(), "--db", tmp.resolve(capture + ".duckdb").toString(), "--out",
                out.toString(), "--format", "json", "--quiet"));
        List<String> codes = ReportJson.warningCodes(JSON.readTree(out.resolve("report.json").toFile()));
        for (String code : List.of("graph_input_copies", "graph_recording", "recompiles", "graph_breaks",
                "host_syncs_in_graph_steps")) {
            assertFalse(codes.contains(code), codes.toString());
        }
    }

    private static JsonNode report(dev.steptrace.testsupport.KinetoTrace t, String name) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        t.write(dir);
        Path out = tmp.resolve("out-" + name);
        assertEquals(0, Main.run("report", dir.toString(), "--db", tmp.resolve(name + ".duckdb").toString(), "--out",
                out.toString(), "--format", "json", "--quiet"));
        return JSON.readTree(out.resolve("report.json").toFile());
    }

    static Path trace() throws Exception {
        try (var files = Files.list(TestData.realCaptures().resolve("compile-reduce-overhead"))) {
            return files.filter(p -> p.toString().endsWith(".pt.trace.json.gz")).findFirst().orElseThrow();
        }
    }

    /** What the raw trace says, read with a JSON tree: CPU ranges, launch calls and GPU operations (ns). */
    static final class Raw {
        record Range(String name, long tid, long startNs, long endNs) {}

        record Op(long correlation, long durNs) {}

        final List<Range> steps = new ArrayList<>();
        final List<Range> foreachCopies = new ArrayList<>();
        final List<Range> cpuOps = new ArrayList<>();
        final List<Range> runtime = new ArrayList<>();
        final Map<Long, Range> launches = new HashMap<>();
        final List<Op> gpuOps = new ArrayList<>();
        final List<Range> stepsWithGraphLaunches = new ArrayList<>();

        static Raw read(Path trace) throws Exception {
            Raw r = new Raw();
            JsonNode root;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
                root = JSON.readTree(in);
            }
            for (JsonNode e : root.get("traceEvents")) {
                if (!"X".equals(e.path("ph").asText())) {
                    continue;
                }
                String cat = e.path("cat").asText("");
                String name = e.path("name").asText();
                long ts = ns(e.get("ts"));
                Range range = new Range(name, e.path("tid").asLong(), ts, ts + ns(e.get("dur")));
                if (cat.equals("user_annotation") && name.startsWith("ProfilerStep#")) {
                    r.steps.add(range);
                } else if (cat.equals("cpu_op")) {
                    r.cpuOps.add(range);
                    if (name.equals("aten::_foreach_copy_")) {
                        r.foreachCopies.add(range);
                    }
                } else if (cat.equals("cuda_runtime") || cat.equals("cuda_driver")) {
                    r.runtime.add(range);
                    if (e.path("args").has("correlation")) {
                        r.launches.put(e.get("args").get("correlation").asLong(), range);
                    }
                } else if (cat.equals("kernel") || cat.equals("gpu_memcpy") || cat.equals("gpu_memset")) {
                    r.gpuOps.add(new Op(e.get("args").get("correlation").asLong(), ns(e.get("dur"))));
                }
            }
            for (Range s : r.steps) {
                if (r.runtime.stream().anyMatch(c -> c.name().equals("cudaGraphLaunch") && inside(s, c))) {
                    r.stepsWithGraphLaunches.add(s);
                }
            }
            return r;
        }

        /** The range of {@code ranges} that holds {@code call}'s start on its thread, or null. */
        Range enclosing(List<Range> ranges, Range call) {
            for (Range r : ranges) {
                if (inside(r, call)) {
                    return r;
                }
            }
            return null;
        }

        static boolean inside(Range outer, Range call) {
            return outer.tid() == call.tid() && outer.startNs() <= call.startNs() && call.startNs() <= outer.endNs();
        }
    }

    private static long ns(JsonNode us) {
        BigDecimal v = us.isTextual() ? new BigDecimal(us.asText()) : us.decimalValue();
        return v.movePointRight(3).setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
    }
}
