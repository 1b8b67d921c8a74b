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
        JsonNode w = warning("graph_input_copies");
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

    /** No graph input copies on the sample captures (CUDA graphs replayed with their inputs in place). */
    @ParameterizedTest
    @ValueSource(strings = {"h200-tp2-moe-decode/graph-nccl-ll", "h200-tp2-moe-decode/graph-nccl-simple"})
    void noGraphInputCopiesOnTheSamples(String capture) throws Exception {
        TestData.sharedOrSkip();
        Path out = tmp.resolve("out-" + capture.replace('/', '-'));
        assertEquals(0, Main.run("report", TestData.sampleTraces().resolve(capture).toString(), "--db",
                tmp.resolve("samples.duckdb").toString(), "--out", out.toString(), "--format", "json", "--quiet"));
        List<String> codes = new ArrayList<>();
        JSON.readTree(out.resolve("report.json").toFile()).get("warnings").forEach(w -> codes.add(w.get("code").asText()));
        assertFalse(codes.contains("graph_input_copies"), codes.toString());
    }

    static JsonNode warning(String code) {
        for (JsonNode w : report.get("warnings")) {
            if (w.get("code").asText().equals(code)) {
                return w;
            }
        }
        throw new AssertionError("no warning " + code + " in " + report.get("warnings"));
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
