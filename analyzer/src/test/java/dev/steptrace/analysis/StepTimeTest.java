package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.api.Capture;
import dev.steptrace.api.Diff;
import dev.steptrace.api.Steptrace;
import dev.steptrace.report.BottleneckReport.HostSync;
import dev.steptrace.report.BottleneckReport.PartShare;
import dev.steptrace.report.BottleneckReport.StepTime;
import dev.steptrace.report.CaptureDiff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Step time on a capture whose every moment is known from its construction: one rank, steps of 1000 µs (plus a
 * host gap that varies by step), in each (times from the step's start, µs):
 * <pre>
 *   CPU  aten::linear 90-120 launches a GEMM at 100 (cudaLaunchKernel, correlation c)
 *        aten::_local_scalar_dense 320-560 (.item()): launches attention at 320, cudaMemcpyAsync 330-335,
 *          cudaStreamSynchronize 340-520 (it waits for the GPU to finish the attention)
 *        aten::cpu_work 520-700, then launches an elementwise kernel at 700
 *   GPU  GEMM 110-310 | attention 330-500 | elementwise 710-800
 * </pre>
 * The window [0, 1000 + gap): idle before the first kernel 0-110 = 110; GEMM 200; idle 310-330, its kernel
 * launched at 320 once the GPU was idle: waiting for launches 20; attention 170; idle 500-710, which began while
 * the synchronize ran: blocked on a host sync 210; elementwise 90; idle after the last kernel 800-(1000 + gap)
 * = 200 + gap. Idle time is 540 + gap of 1000 + gap.
 */
class StepTimeTest {
    @TempDir
    Path tmp;

    private static final int STEPS = 6;

    /** Each step's extra host gap after its kernels (µs): a few µs of jitter, so intervals have a width. */
    private static long gap(int step, long extra) {
        return extra + (step % 3) * 4;
    }

    @Test
    void partsSumToTheStepAndIdleIsAttributedToItsCause() throws Exception {
        Path dir = write("host-gaps", 0);
        try (Steptrace st = Steptrace.openTraces(dir, tmp.resolve("a.duckdb")); Capture c = st.capture()) {
            // per step, every part as constructed (ns): the windows of steps 0-4 end at the next step's start;
            // the last one at its annotation's end
            Map<Integer, Map<String, Long>> parts = partsPerStep(st, c);
            assertEquals(STEPS, parts.size());
            for (int s = 0; s < STEPS; s++) {
                long after = 200 + gap(s, 0);
                Map<String, Long> expected = new LinkedHashMap<>();
                expected.put("attention", 170_000L);
                expected.put("gemm", 200_000L);
                expected.put("idle_after", after * 1000);
                expected.put("idle_before", 110_000L);
                expected.put("idle_launch", 20_000L);
                expected.put("idle_sync", 210_000L);
                expected.put("other", 90_000L);
                assertEquals(expected, parts.get(s), "step " + s);
                assertEquals((1000 + gap(s, 0)) * 1000, stepNs(st, c, s), "step " + s + "'s window");
            }

            StepTime t = c.report().phases().get("unknown").stepTime();
            double meanStep = 0;
            for (int s = 0; s < STEPS; s++) {
                meanStep += (1000 + gap(s, 0)) / 1000.0 / STEPS;
            }
            assertEquals(meanStep, t.msPerStep(), 1e-9);
            assertEquals(t.msPerStep(), t.parts().stream().mapToDouble(PartShare::msPerStep).sum(), 1e-9);
            assertEquals("idle_sync", t.parts().get(0).name(), "the largest part first: " + t.parts());
            assertEquals(0.21, t.parts().get(0).msPerStep(), 1e-9);
            assertEquals(0, t.paceRank());
            assertEquals(3, t.launchesPerStep(), 1e-9, "three kernels launched per step");
            // the synchronize, issued by .item()'s op, caused the idle; the memcpy ended before the GPU went idle
            HostSync sync = t.hostSyncs().get(0);
            assertEquals(List.of("cudaStreamSynchronize", "aten::_local_scalar_dense"), List.of(sync.call(), sync.op()));
            assertEquals(1, sync.callsPerStep(), 1e-9);
            assertEquals(0.18, sync.callMsPerStep(), 1e-9);
            assertEquals(0.21, sync.idleMsPerStep(), 1e-9);
            HostSync copy = t.hostSyncs().get(1);
            assertEquals(List.of("cudaMemcpyAsync", "aten::_local_scalar_dense"), List.of(copy.call(), copy.op()));
            assertEquals(0, copy.idleMsPerStep(), 1e-9);
            assertTrue(t.finding().contains("host syncs") && t.finding().contains("cudaStreamSynchronize")
                    && t.finding().contains("aten::_local_scalar_dense") && t.finding().contains("CUDA graphs do not"),
                    t.finding());
            // CPU ops under the idle time: aten::cpu_work 520-700 in the sync gap (180); .item() 320-560 over
            // 320-330 and 500-560 (70); aten::linear 90-120 over 90-110 (20)
            Map<String, Double> ops = new LinkedHashMap<>();
            t.idleCpuOps().forEach(o -> ops.put(o.name(), o.idleMsPerStep()));
            assertEquals(0.18, ops.get("aten::cpu_work"), 1e-9);
            assertEquals(0.07, ops.get("aten::_local_scalar_dense"), 1e-9);
            assertEquals(0.02, ops.get("aten::linear"), 1e-9);

            // the API's tables say the same
            var table = c.stepTime("unknown");
            assertEquals(7, table.rowCount());
            assertEquals("idle_sync", table.stringColumn("part").get(0));
            assertEquals(0.21, table.doubleColumn("ms_per_step").get(0), 1e-9);
            assertEquals(meanStep, c.summary().doubleColumn("step_ms_mean").get(0), 1e-9);
            assertEquals("idle_sync", c.summary().stringColumn("largest_part").get(0));
            assertEquals(7, c.rankStepTime("unknown").rowCount(), "one rank, seven parts");
        }
    }

    @Test
    void moreHostGapIsSlowerWithTheSameKernels() throws Exception {
        Path a = write("gap-a", 0);
        Path b = write("gap-b", 300);
        try (Steptrace sa = Steptrace.openTraces(a, tmp.resolve("a.duckdb")); Capture ca = sa.capture();
             Steptrace sb = Steptrace.openTraces(b, tmp.resolve("b.duckdb")); Capture cb = sb.capture()) {
            Diff d = Steptrace.diff(ca, cb);
            CaptureDiff.PhaseDiff p = d.model().phases().get("unknown");
            assertEquals(CaptureDiff.Verdict.SLOWER, p.verdict());
            CaptureDiff.Delta step = p.stepTime().change();
            assertEquals(0.3, step.deltaMs(), 1e-9, "300 µs more host gap per step, whatever the jitter");
            assertTrue(step.significant());
            assertTrue(step.ci95Ms().get(0) <= step.deltaMs() && step.deltaMs() <= step.ci95Ms().get(1), step.ci95Ms().toString());
            assertEquals(0, p.kernelMsPerStep().deltaMs(), 1e-9, "the same kernels");
            assertTrue(!p.kernelMsPerStep().significant());
            CaptureDiff.PartDelta moved = p.stepTime().parts().get(0);
            assertEquals("idle_after", moved.name(), "the part that moved first");
            assertEquals(0.3, moved.deltaMs(), 1e-9);
        }
    }

    private static Map<Integer, Map<String, Long>> partsPerStep(Steptrace st, Capture c) throws SQLException {
        Map<Integer, Map<String, Long>> out = new LinkedHashMap<>();
        try (Statement s = st.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT step, part, ns FROM step_time_parts WHERE " + c.where() + " ORDER BY step, part")) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getInt(1), k -> new LinkedHashMap<>()).put(rs.getString(2), rs.getLong(3));
            }
        }
        return out;
    }

    private static long stepNs(Steptrace st, Capture c, int step) throws SQLException {
        try (Statement s = st.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT step_ns FROM step_times WHERE " + c.where() + " AND step = " + step)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The capture of the class comment, each step's host gap {@code extra} µs longer. */
    private Path write(String name, long extra) throws IOException {
        List<String> ev = new ArrayList<>();
        long t = 1_000;
        long corr = 1;
        long ext = 1;
        for (int s = 0; s < STEPS; s++) {
            long len = 1000 + gap(s, extra);
            ev.add(event("user_annotation", "ProfilerStep#" + s, t, len, null));
            ev.add(event("cpu_op", "aten::linear", t + 90, 30, "{\"External id\": " + ext + "}"));
            ev.add(runtime("cudaLaunchKernel", t + 100, 5, corr, ext));
            ev.add(kernel("nvjet_tst_128x64_64x4_1x2_h_bz_TNT", t + 110, 200, corr++));
            ext++;
            long item = ext++;
            ev.add(event("cpu_op", "aten::_local_scalar_dense", t + 320, 240, "{\"External id\": " + item + "}"));
            ev.add(runtime("cudaLaunchKernel", t + 320, 5, corr, item));
            ev.add(kernel("flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>>", t + 330, 170, corr++));
            ev.add(runtime("cudaMemcpyAsync", t + 330, 5, null, item));
            ev.add(runtime("cudaStreamSynchronize", t + 340, 180, null, item));
            ev.add(event("cpu_op", "aten::cpu_work", t + 520, 180, "{\"External id\": " + ext++ + "}"));
            ev.add(runtime("cudaLaunchKernel", t + 700, 5, corr, ext - 1));
            ev.add(kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
                    t + 710, 90, corr++));
            t += len;
        }
        Path dir = Files.createDirectories(tmp.resolve(name));
        Files.writeString(dir.resolve("rank0.pt.trace.json"), "{\"traceEvents\": [" + String.join(",\n", ev) + "]}");
        return dir;
    }

    private static String event(String cat, String name, long ts, long dur, String args) {
        return String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100,"
                + " \"ts\": %d, \"dur\": %d%s}", cat, name, ts, dur, args == null ? "" : ", \"args\": " + args);
    }

    private static String runtime(String name, long ts, long dur, Long correlation, long external) {
        return event("cuda_runtime", name, ts, dur, "{\"External id\": " + external
                + (correlation == null ? "" : ", \"correlation\": " + correlation) + "}");
    }

    private static String kernel(String name, long ts, long dur, long correlation) {
        return String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7,"
                + " \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}}", name, ts, dur,
                correlation);
    }
}
