package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.ProfilerStepOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The report on the real H200 captures, checked against what the capture script built (61 layers,
 * two tensor-parallel all-reduces per layer plus the embedding's, an lm-head all-gather, 10 profiled
 * decode steps) and against per-step kernel time recomputed here from a plain tree parse of the trace.
 */
class ReportOnRealTracesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"graph-nccl-ll", "graph-nccl-simple"})
    void graphCaptureDecodeSteps(String capture) throws Exception {
        Path dir = TestData.sampleTraces().resolve("h200-tp2-moe-decode").resolve(capture);
        JsonNode report = report(dir);
        JsonSchemas.assertValid("report.schema.json", report);
        JsonNode decode = report.at("/phases/decode");
        assertEquals(Set.of("decode"), fieldNames(report.get("phases")), "only decode steps in this capture");
        assertEquals("profiler_step", decode.get("step_source").asText());
        assertEquals(10, decode.get("steps").asDouble(), "ProfilerStep#2..#11 on each rank");
        for (JsonNode rank : report.get("ranks")) {
            assertEquals(10, rank.at("/phases/decode/steps").asDouble(), "steps of rank " + rank.get("rank"));
        }
        Map<String, JsonNode> cats = byId(decode.get("categories"));
        assertEquals(123, cats.get("allreduce").get("calls_per_step").asDouble(), "61 layers x 2 + the embedding");
        assertEquals(61, cats.get("attention").get("calls_per_step").asDouble(), "one attention per layer");
        assertEquals(122, cats.get("moe_gemm").get("calls_per_step").asDouble(), "gate_up and down per layer");
        assertEquals(1, cats.get("comm_other").get("calls_per_step").asDouble(), "the lm-head all-gather");
        assertEquals("all_gather", cats.get("comm_other").at("/subcategories/0/id").asText());

        double sumShares = 0;
        double sumMs = 0;
        for (JsonNode c : decode.get("categories")) {
            sumShares += c.get("share_pct").asDouble();
            sumMs += c.get("ms_per_step").asDouble();
        }
        assertEquals(100, sumShares, 1e-6, "shares are of total kernel time");
        assertEquals(decode.at("/kernel_ms_per_step/mean").asDouble(), sumMs, 1e-6, "categories add up to kernel time");

        // Independent: per step, the GPU time of everything the step's cudaGraphLaunch (and other
        // launches inside the ProfilerStep range) put on the GPU, from a full tree parse of each rank.
        List<Double> perRankMean = new ArrayList<>();
        try (var files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                perRankMean.add(meanStepGpuMs(f));
            }
        }
        double expected = perRankMean.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        assertEquals(expected, decode.at("/kernel_ms_per_step/mean").asDouble(), 1e-6);

        JsonNode ar = report.get("collectives").get(0);
        assertEquals("allreduce", ar.get("type").asText());
        assertTrue(ar.get("msg_bytes").isNull(), "graph replays carry no collective metadata: null, not invented");
        assertTrue(ar.get("wait_ms_per_step").asDouble() >= 0);
        assertEquals(cats.get("allreduce").get("ms_per_step").asDouble(),
                ar.get("wait_ms_per_step").asDouble() + ar.get("transfer_ms_per_step").asDouble(), 1e-6,
                "wait + transfer = the all-reduce time of the mean rank");

        // Every operation runs on stream 7: nothing can hide under anything.
        assertEquals(0, decode.at("/overlap/hidden_pct").asDouble(), "one stream: 0% hidden");
        assertTrue(decode.at("/overlap/comm_ms_per_step").asDouble() > 0);
        // One graph replay per step, launched well before the GPU needs it.
        assertEquals(1, decode.at("/host_bound/graph_replays_per_step").asDouble(), "one CUDA graph per ProfilerStep");
        assertFalse(decode.at("/host_bound/launch_bound").asBoolean());
        report.get("warnings").forEach(w -> assertFalse(w.get("code").asText().equals("launch_bound"), w.toString()));
    }

    @Test
    void eagerCaptureHasPrefillThenDecodeAndMessageSizes() throws Exception {
        JsonNode report = report(TestData.sampleTraces().resolve("h200-tp2-moe-eager/batch16-prefill256"));
        JsonSchemas.assertValid("report.schema.json", report);
        assertEquals(1, report.at("/phases/prefill/steps").asDouble(), "the first profiled step is the prefill");
        assertEquals(5, report.at("/phases/decode/steps").asDouble());
        JsonNode ar = null;
        for (JsonNode c : report.get("collectives")) {
            if (c.get("phase").asText().equals("decode") && c.get("type").asText().equals("allreduce")) {
                ar = c;
            }
        }
        // record_param_comms says In msg nelems = hidden 7168 x batch 16, dtype BFloat16 (2 bytes).
        assertEquals(7168 * 16 * 2, ar.at("/msg_bytes/median").asDouble());
        assertEquals(123, ar.get("calls_per_step").asDouble());
        // nccl-tests convention for all-reduce: busbw = bytes / time x 2(n-1)/n, n = 2 ranks.
        assertTrue(ar.get("busbw_gbps").asDouble() > 0);
    }

    @Test
    void vllmAnnotationsGiveStepsAndPhases() throws Exception {
        Path shared = TestData.sharedOrSkip();
        JsonNode report = report(shared.resolve("compat-traces/tracelens_b200_vllm_eager_rank0.json.gz"));
        JsonSchemas.assertValid("report.schema.json", report);
        // The trace holds one execute_context_1(888_788544)_generation_0(0) step: context 1, generation 0.
        assertEquals(Set.of("prefill"), fieldNames(report.get("phases")));
        assertEquals("vllm_annotation", report.at("/phases/prefill/step_source").asText());
        assertEquals(1, report.at("/phases/prefill/steps").asDouble());
    }

    private JsonNode report(Path capture) throws Exception {
        Path out = tmp.resolve("out-" + capture.getFileName());
        int code = Main.run("report", capture.toString(), "--db", tmp.resolve("store.duckdb").toString(),
                "--out", out.toString(), "--format", "json", "--quiet");
        assertEquals(0, code);
        return JSON.readTree(out.resolve("report.json").toFile());
    }

    private static Set<String> fieldNames(JsonNode o) {
        Set<String> s = new HashSet<>();
        o.fieldNames().forEachRemaining(s::add);
        return s;
    }

    private static Map<String, JsonNode> byId(JsonNode array) {
        Map<String, JsonNode> m = new HashMap<>();
        array.forEach(n -> m.put(n.get("id").asText(), n));
        return m;
    }

    /** Mean over ProfilerStep ranges of the summed duration of GPU ops launched inside the range. */
    private static double meanStepGpuMs(Path trace) throws Exception {
        return ProfilerStepOracle.msPerStep(trace, e -> Set.of("kernel", "gpu_memcpy", "gpu_memset")
                .contains(e.path("cat").asText())).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }
}
