package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.steptrace.api.Capture;
import dev.steptrace.api.Steptrace;
import dev.steptrace.report.BottleneckReport.PartShare;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import dev.steptrace.report.BottleneckReport.StepTime;
import dev.steptrace.testing.TestData;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Step time on real captures, against an independent reading of the raw events: the parts of each step sum to
 * its window, and its idle parts match the window less the union of every GPU operation's interval, worked out
 * here from the trace's JSON tree.
 */
class StepTimeOnRealTracesTest {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    @TempDir
    Path tmp;

    @Test
    void graphSampleIdleMatchesTheRawEventsAndTheHeadlineIsKernelTimePlusIdle() throws Exception {
        Path dir = TestData.sampleTraces().resolve("h200-tp2-moe-decode/graph-nccl-ll");
        try (Steptrace st = Steptrace.openTraces(dir, tmp.resolve("s.duckdb")); Capture c = st.capture()) {
            for (Path trace : TestData.kinetoTraces(dir)) {
                List<long[]> oracle = idlePerStep(trace); // per ProfilerStep: {window ns, idle ns}
                int rank = trace.getFileName().toString().startsWith("rank0") ? 0 : 1;
                List<long[]> ours = new ArrayList<>(); // per step: {step_ns, sum of parts, idle parts}
                try (Statement s = st.connection().createStatement(); ResultSet rs = s.executeQuery("""
                        SELECT t.step_ns, sum(p.ns), sum(p.ns) FILTER (WHERE p.part LIKE 'idle%%')
                        FROM step_times t JOIN step_time_parts p USING (capture_id, analysis_key, file_id, step)
                        WHERE t.%s AND t.rank = %d GROUP BY t.step, t.step_ns ORDER BY t.step""".formatted(
                                c.where().replace(" AND ", " AND t."), rank))) {
                    while (rs.next()) {
                        ours.add(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)});
                    }
                }
                assertEquals(oracle.size(), ours.size(), trace + ": steps");
                for (int i = 0; i < ours.size(); i++) {
                    long window = ours.get(i)[0];
                    assertEquals(oracle.get(i)[0], window, trace + " step " + i + ": the window");
                    assertEquals(window, ours.get(i)[1], window * 0.01, trace + " step " + i + ": the parts sum to it");
                    double idlePct = 100.0 * ours.get(i)[2] / window;
                    double oraclePct = 100.0 * oracle.get(i)[1] / window;
                    assertEquals(oraclePct, idlePct, 1.0, trace + " step " + i + ": idle share, in percentage points");
                }
            }
            // One stream, nothing overlaps: the step is its kernel time plus its idle time, and idle is small.
            PhaseSummary decode = c.report().phases().get("decode");
            StepTime t = decode.stepTime();
            double idle = t.parts().stream().filter(p -> p.name().startsWith("idle")).mapToDouble(PartShare::msPerStep).sum();
            assertTrue(idle < 0.1 * t.msPerStep(), "idle is small under CUDA graphs: " + idle + " of " + t.msPerStep());
            assertEquals(decode.kernelMsPerStep().mean() + idle, t.msPerStep(), 0.01 * t.msPerStep());
            assertTrue(t.finding().startsWith("The GPU is busy: MoE GEMMs"), t.finding());
        }
    }

    @Test
    void aLaunchBoundCaptureLeadsWithWaitingForLaunches() throws Exception {
        Path trace = TestData.sharedOrSkip().resolve("compat-traces/tracelens_b200_vllm_eager_rank0.json.gz");
        Path dir = Files.createDirectories(tmp.resolve("vllm-eager"));
        Files.copy(trace, dir.resolve(trace.getFileName()));
        try (Steptrace st = Steptrace.openTraces(dir, tmp.resolve("v.duckdb")); Capture c = st.capture()) {
            PhaseSummary prefill = c.report().phases().get("prefill");
            StepTime t = prefill.stepTime();
            assertEquals("idle_launch", t.parts().get(0).name(), "the first row: " + t.parts());
            assertTrue(t.parts().get(0).sharePct() > 50, "most of the step: " + t.parts().get(0));
            assertTrue(t.finding().contains("launch-bound") && t.finding().contains("CUDA graph"), t.finding());
            // the kernels are a small part of this step: the kernel time is far below the step time
            assertTrue(prefill.kernelMsPerStep().mean() < 0.3 * t.msPerStep());
            // the window from the raw events: the vLLM step annotation's start to its end (one step, the last)
            List<long[]> oracle = idlePerStep(trace, "execute_context_");
            assertEquals(1, oracle.size());
            assertEquals(oracle.get(0)[0] / 1e6, t.msPerStep(), 1e-6);
            double idle = t.parts().stream().filter(p -> p.name().startsWith("idle")).mapToDouble(PartShare::msPerStep).sum();
            assertEquals(100.0 * oracle.get(0)[1] / oracle.get(0)[0], 100.0 * idle / t.msPerStep(), 1.0);
        }
    }

    private static List<long[]> idlePerStep(Path trace) throws Exception {
        return idlePerStep(trace, "ProfilerStep#");
    }

    /**
     * Per step annotation (name starting with {@code prefix}), in time order: {window, idle} in ns. The window
     * runs from the annotation's start to the next one's, the last to the later of its end and the last GPU
     * operation's end; idle is the window less the union of every GPU operation (kernel, memcpy, memset) in it.
     */
    static List<long[]> idlePerStep(Path trace, String prefix) throws Exception {
        JsonNode root;
        try (InputStream in = trace.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(trace))
                : Files.newInputStream(trace)) {
            root = JSON.readTree(in);
        }
        List<long[]> steps = new ArrayList<>();
        List<long[]> gpu = new ArrayList<>();
        for (JsonNode e : root.get("traceEvents")) {
            String cat = e.path("cat").asText();
            if (!"X".equals(e.path("ph").asText())) {
                continue;
            }
            long ts = nanos(e.get("ts"));
            long end = ts + nanos(e.get("dur"));
            if (cat.equals("user_annotation") && e.path("name").asText().startsWith(prefix)) {
                steps.add(new long[] {ts, end});
            } else if (cat.equals("kernel") || cat.equals("gpu_memcpy") || cat.equals("gpu_memset")) {
                gpu.add(new long[] {ts, end});
            }
        }
        steps.sort(Comparator.comparingLong(s -> s[0]));
        gpu.sort(Comparator.comparingLong(g -> g[0]));
        // the union of the GPU operations, as disjoint intervals
        List<long[]> union = new ArrayList<>();
        for (long[] g : gpu) {
            if (!union.isEmpty() && g[0] <= union.get(union.size() - 1)[1]) {
                union.get(union.size() - 1)[1] = Math.max(union.get(union.size() - 1)[1], g[1]);
            } else {
                union.add(new long[] {g[0], g[1]});
            }
        }
        long lastGpuEnd = union.isEmpty() ? Long.MIN_VALUE : union.get(union.size() - 1)[1];
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            long from = steps.get(i)[0];
            long to = i + 1 < steps.size() ? steps.get(i + 1)[0] : Math.max(steps.get(i)[1], lastGpuEnd);
            long busy = 0;
            for (long[] u : union) {
                busy += Math.max(0, Math.min(u[1], to) - Math.max(u[0], from));
            }
            out.add(new long[] {to - from, to - from - busy});
        }
        return out;
    }

    private static long nanos(JsonNode v) {
        return new BigDecimal(v.asText()).movePointRight(3).setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
    }
}
