package dev.steptrace.analysis;

import static dev.steptrace.testsupport.NsysFixtures.GEMM;
import static dev.steptrace.testsupport.NsysFixtures.NCCL;
import static dev.steptrace.testsupport.NsysFixtures.SESSION;
import static dev.steptrace.testsupport.NsysFixtures.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.RuleEvidence;
import dev.steptrace.testsupport.NsysCapture;
import dev.steptrace.testsupport.NsysExport.Container;
import dev.steptrace.testsupport.NsysFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NVTX step source (StepDetector.nvtxSteps): outermost NVTX push/pop ranges of the thread that
 * launches the most GPU work, one level down when a single range wraps the run, library domains
 * left out.
 */
class NvtxStepsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long PID = 5000;
    private static final long HELPER = 5001;

    @TempDir
    Path tmp;

    private long corr = 1;

    /** One GEMM launched at {@code at} on thread {@code tid}, running 100 µs from {@code at + 10 µs}. */
    private void launch(NsysCapture c, long at, long tid) {
        c.call(at, 3_000, tid, corr, "cudaLaunchKernel_v7000", false);
        c.kernel(at + 10_000, 100_000, 0, 7, corr, GEMM);
        corr++;
    }

    /**
     * A "generate" range around three 1 ms ranges named by {@code name}, each launching one GEMM 200 µs in;
     * returns their starts.
     */
    private long[] generateAround(NsysCapture c, java.util.function.IntFunction<String> name) {
        c.pushPop(T0, 10_000_000, PID, "generate");
        long[] starts = new long[3];
        for (int i = 0; i < 3; i++) {
            starts[i] = T0 + 1_000_000 + i * 2_000_000L;
            c.pushPop(starts[i], 1_000_000, PID, name.apply(i));
            launch(c, starts[i] + 200_000, PID);
        }
        return starts;
    }

    private NsysCapture capture() {
        NsysCapture c = new NsysCapture(SESSION, PID);
        c.domain(SESSION + 10, PID, 3, "NCCL", false);
        return c;
    }

    @Test
    void aSingleRangeAroundTheRunIsNotAStepTheLevelBelowIs() throws Exception {
        NsysCapture c = capture();
        // "generate" wraps three "iteration" ranges, each with a nested "forward" around its launch.
        for (long s : generateAround(c, i -> "iteration")) {
            c.pushPop(s + 100_000, 500_000, PID, "forward");
        }
        // An NCCL-domain range at the top level with a launch: a library call, not a step.
        c.pushPop(T0 + 12_000_000, 200_000, PID, "ncclAllReduce", 3);
        c.call(T0 + 12_050_000, 3_000, PID, corr, "cuLaunchKernelEx", true);
        c.kernel(T0 + 12_060_000, 30_000, 0, 7, corr++, NCCL);
        // A helper thread with its own ranges and one launch: not the main thread.
        c.pushPop(T0 + 500_000, 300_000, HELPER, "helper_a");
        c.pushPop(T0 + 900_000, 300_000, HELPER, "helper_b");
        launch(c, T0 + 950_000, HELPER);
        JsonNode phase = report(c).at("/unknown");
        assertEquals("nvtx", phase.get("step_source").asText());
        assertEquals(3, phase.get("steps").asDouble());
        assertEquals(List.of("iteration", "iteration", "iteration"), stepNames());
    }

    @Test
    void outermostRangesAreStepsWhenThereAreSeveral() throws Exception {
        NsysCapture c = capture();
        for (int i = 0; i < 4; i++) {
            long s = T0 + i * 2_000_000L;
            c.pushPopRegistered(s, 1_000_000, PID, "decode_step");
            c.pushPop(s + 100_000, 500_000, PID, "layer");
            launch(c, s + 200_000, PID);
            launch(c, s + 300_000, PID);
        }
        // A range that launches nothing is not a step.
        c.pushPop(T0 + 9_000_000, 1_000_000, PID, "idle");
        JsonNode phase = report(c).at("/decode");
        assertEquals("nvtx", phase.get("step_source").asText());
        assertEquals(4, phase.get("steps").asDouble(), "the phase comes from the step's name (decode)");
        assertEquals(2, phase.at("/categories/0/calls_per_step").asDouble());
    }

    @Test
    void rangesNamedPerLayerAreNotSteps() throws Exception {
        // A wrapper around three layer_N_forward ranges, each launching one GEMM: layers, not steps.
        NsysCapture c = capture();
        generateAround(c, i -> "layer_" + i + "_forward");
        JsonNode report = reportJson(c);
        assertEquals("gap", report.at("/phases/unknown/step_source").asText(), "the next source");
        assertTrue(report.get("warnings").toString().contains("'layer_#_forward' (3 range(s), 100.0%"),
                report.get("warnings").toString());
        try (dev.steptrace.store.Store store = dev.steptrace.store.Store.open(tmp.resolve("s.duckdb"))) {
            List<String> rows = RuleEvidence.rows(store.connection(), "nvtx_ranges_not_steps", 1, "default");
            assertEquals(1, rows.size(), rows.toString());
            assertTrue(rows.get(0).contains("'layer_#_forward' (3 range(s), 100.0%"),
                    "the rule's evidence: the file's note on its ranges: " + rows);
        }
    }

    @Test
    void aRepeatedRangeThatHoldsTooLittleOfTheGpuWorkIsNotAStep() throws Exception {
        // Two "prepare" ranges hold 2 x 100 µs of the 100 + 100 + 3 x 100 µs launched: 40%, below 90%.
        NsysCapture c = capture();
        for (int i = 0; i < 2; i++) {
            long s = T0 + i * 4_000_000L;
            c.pushPop(s, 1_000_000, PID, "prepare");
            launch(c, s + 200_000, PID);
        }
        c.pushPop(T0 + 9_000_000, 3_000_000, PID, "run_all");
        for (int i = 0; i < 3; i++) {
            launch(c, T0 + 9_100_000 + i * 500_000L, PID);
        }
        JsonNode report = reportJson(c);
        assertEquals("gap", report.at("/phases/unknown/step_source").asText());
        assertTrue(report.get("warnings").toString().contains("'prepare' (2 range(s), 40.0%")
                && report.get("warnings").toString().contains("does not repeat and hold at least 90%"),
                report.get("warnings").toString());
    }

    @Test
    void oneRangeInAllIsOneStep() throws Exception {
        NsysCapture c = capture();
        c.pushPop(T0, 5_000_000, PID, "benchmark");
        launch(c, T0 + 100_000, PID);
        launch(c, T0 + 1_100_000, PID);
        JsonNode phase = report(c).at("/unknown");
        assertEquals("nvtx", phase.get("step_source").asText());
        assertEquals(1, phase.get("steps").asDouble());
    }

    @Test
    void namedSourcesWinOverNvtx() throws Exception {
        // vLLM's step annotation as an NVTX range: the vLLM source, not the generic one.
        NsysCapture c = capture();
        c.pushPop(T0, 10_000_000, PID, "generate");
        for (int i = 0; i < 2; i++) {
            long s = T0 + 1_000_000 + i * 2_000_000L;
            c.pushPop(s, 1_000_000, PID, NsysFixtures.DECODE);
            launch(c, s + 200_000, PID);
        }
        JsonNode decode = report(c).at("/decode");
        assertEquals("vllm_annotation", decode.get("step_source").asText());
        assertEquals(2, decode.get("steps").asDouble());
    }

    private JsonNode report(NsysCapture c) throws Exception {
        return reportJson(c).get("phases");
    }

    private JsonNode reportJson(NsysCapture c) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("cap"));
        NsysFixtures.write(c, Container.SQLITE, dir.resolve("rank0.sqlite"));
        Cli.Result r = Cli.run("report", dir.toString(), "--db", tmp.resolve("s.duckdb").toString(), "--out",
                tmp.resolve("out").toString(), "--format", "json", "--quiet");
        Cli.assertExit(0, r);
        return JSON.readTree(tmp.resolve("out/report.json").toFile());
    }

    /** The steps' names, from the analysis the report kept in the store. */
    private List<String> stepNames() throws Exception {
        try (dev.steptrace.store.Store store = dev.steptrace.store.Store.open(tmp.resolve("s.duckdb"));
             var s = store.connection().createStatement();
             var rs = s.executeQuery("SELECT name FROM steps WHERE capture_id = 1 AND analysis_key = 'default'"
                     + " ORDER BY step")) {
            List<String> names = new ArrayList<>();
            while (rs.next()) {
                names.add(rs.getString(1));
            }
            return names;
        }
    }
}
