package dev.steptrace.decide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code steptrace decide} end to end, on synthetic captures with the reference breakdown of docs/synth.md (8 ranks,
 * batch 1 and batch 16) and on the real 2x H200 NVLink sample, with the bundled scenario and with a
 * scenario written here. The same code runs every case: only the data differs.
 */
class DecideCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    static Path db;
    static Path batch1;
    static Path batch16;

    @BeforeAll
    static void captures() {
        db = tmp.resolve("store.duckdb");
        batch1 = tmp.resolve("kimi-bs1");
        batch16 = tmp.resolve("kimi-bs16");
        Cli.assertExit(0, Cli.run("synth", "--preset", "moe-tp8-graph", "--ranks", "8", "--steps", "5", "--prefill-steps", "0",
                "--out", batch1.toString(), "-q"));
        Cli.assertExit(0, Cli.run("synth", "--preset", "moe-tp8-graph", "--ranks", "8", "--steps", "5", "--prefill-steps", "0",
                "--batch", "16", "--out", batch16.toString(), "-q"));
    }

    private static JsonNode decide(Path capture, String scenario, String out, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("decide", capture.toString(), "--scenario", scenario,
                "--db", db.toString(), "--out", tmp.resolve(out).toString(), "--quiet"));
        args.addAll(List.of(extra));
        Cli.Result r = Cli.run(args.toArray(new String[0]));
        Cli.assertExit(0, r);
        JsonNode d = JSON.readTree(tmp.resolve(out).resolve("decision.json").toFile());
        JsonSchemas.assertValid("decision.schema.json", d);
        return d;
    }

    /** The generator's decode ms per step: of a category, or (null) the step time. */
    private static double truth(Path capture, String category) throws java.io.IOException {
        JsonNode decode = JSON.readTree(capture.resolve("EXPECTED.json").toFile()).at("/phases/decode");
        if (category == null) {
            return decode.get("step_ms_per_step").asDouble();
        }
        for (JsonNode c : decode.get("categories")) {
            if (c.get("id").asText().equals(category)) {
                return c.get("ms_per_step").asDouble();
            }
        }
        throw new AssertionError("no " + category + " in " + capture);
    }

    private static JsonNode option(JsonNode d, String id) {
        for (JsonNode o : d.get("options")) {
            if (o.get("id").asText().equals(id)) {
                return o;
            }
        }
        throw new AssertionError("no option " + id);
    }

    @Test
    void specBreakdownAtBatch16Accepts() throws Exception {
        JsonNode d = decide(batch16, "pcie-allreduce-tax", "bs16");
        assertEquals("steptrace.decision/1", d.get("schema").asText());
        assertEquals("accept", d.get("decision").asText());
        assertTrue(d.get("option").isNull());
        JsonNode f = d.get("facts");
        assertEquals("allreduce", f.get("category").asText());
        assertEquals("decode", f.get("phase").asText());
        // the tax's share of the step time, both from the generator's ground truth (EXPECTED.json)
        double share = 100 * truth(batch16, "allreduce") / truth(batch16, null);
        assertEquals(share, f.get("share_pct").asDouble(), 0.1);
        assertEquals(1 / (1 - share / 100), f.get("amdahl_max_speedup").asDouble(), 0.02);
        assertEquals(127, f.get("calls_per_step").asDouble());
        assertEquals(11.17, f.get("ms_per_step").asDouble(), 0.03);
        assertEquals("unknown", f.get("regime").asText(), "CUDA-graph replays carry no message sizes");
        assertEquals(16, f.get("batch").asInt(), "read from execute_context_0(0)_generation_16(16)");
        assertTrue(f.get("batch_source").asText().contains("execute_context_0(0)_generation_16(16)"));

        JsonNode ep = option(d, "expert_parallel");
        assertTrue(ep.get("projected_speedup").asDouble() < 1, "EP is slower at batch 16");
        assertTrue(ep.get("projected_step_ms").asDouble() > f.get("step_ms").asDouble());
        assertFalse(ep.get("admissible").asBoolean());
        JsonNode fp8 = option(d, "fp8_collectives");
        assertFalse(fp8.get("admissible").asBoolean());
        assertEquals("precision", fp8.get("violates").get(0).asText());
        assertTrue(d.get("revisit_when").toString().contains("NVLink"), d.get("revisit_when").toString());
        assertEquals(0, d.get("warnings").size(), "the synthetic capture is the scenario's hardware: " + d.get("warnings"));

        // Every number names its source.
        f.get("sources").fields().forEachRemaining(e -> assertFalse(e.getValue().asText().isBlank(), e.getKey()));
        assertTrue(f.get("sources").get("ms_per_step").asText().contains("capture kimi-bs16, decode (5 steps per rank, ranks 0–7"));
        String step = String.format(java.util.Locale.ROOT, "%.2f ms (step time)", truth(batch16, null));
        for (JsonNode o : d.get("options")) {
            assertTrue(o.get("derivation").asText().startsWith(step)
                    || o.get("derivation").asText().startsWith("(" + step), o.get("derivation").asText());
        }
        for (String file : List.of("decision.html", "decision.md", "chart-decision-options.png")) {
            assertTrue(Files.isRegularFile(tmp.resolve("bs16").resolve(file)), file);
        }
        assertMarkdownTablesAreWellFormed(Files.readString(tmp.resolve("bs16").resolve("decision.md")));
    }

    @Test
    void specBreakdownAtBatch1AcceptsWithBench() throws Exception {
        Path benchDir = TestData.repoRoot().resolve("analyzer/src/test/resources/decide/bench");
        List<String> bench = new ArrayList<>(List.of("--bench"));
        try (Stream<Path> s = Files.list(benchDir)) {
            s.filter(p -> p.toString().endsWith(".json")).sorted().forEach(p -> bench.add(p.toString()));
        }
        JsonNode d = decide(batch1, "pcie-allreduce-tax", "bs1", bench.toArray(new String[0]));
        assertEquals("accept", d.get("decision").asText());
        assertEquals(1, d.at("/facts/batch").asInt());
        JsonNode ep = option(d, "expert_parallel");
        assertTrue(ep.get("projected_speedup").asDouble() > 1, "EP wins a little at batch 1");
        assertFalse(ep.get("admissible").asBoolean(), "but collapses at operating batch 16");
        assertTrue(ep.get("violates").toString().contains("operating_batches"));
        assertEquals(6, d.at("/bench/runs").size());
        assertEquals(128, d.at("/bench/plateau_concurrency").asInt());
        assertTrue(d.get("checks").toString().contains("bench-vs-capture"));
        assertTrue(Files.isRegularFile(tmp.resolve("bs1").resolve("chart-decision-bench.png")));
    }

    /**
     * The bundled scenario is about 8x RTX PRO 6000 over PCIe; the sample ran on 2x H200 over NVLink
     * (deviceProperties "NVIDIA H200", world size 2): the memo does not apply, says why first, weighs no
     * option, and says the measured share (under 3%) contradicts the premise of "about half".
     */
    @Test
    void theBundledPcieScenarioDoesNotApplyToTheH200Sample() throws Exception {
        JsonNode d = decide(TestData.sampleTraces().resolve("h200-tp2-moe-decode/graph-nccl-ll"), "pcie-allreduce-tax", "h200",
                "--format", "json");
        assertEquals("not_applicable", d.get("decision").asText());
        assertTrue(d.get("option").isNull());
        String summary = d.get("summary").asText();
        assertTrue(summary.startsWith("Not applicable: the scenario's hardware is not the capture's (hardware.gpu is"
                + " \"RTX PRO 6000 Blackwell\" but the capture ran on NVIDIA H200; hardware.gpus is 8 but the capture has world"
                + " size 2; hardware.interconnect is pcie but the capture's GPUs are linked by nvlink)."), summary);
        double share = d.at("/facts/share_pct").asDouble();
        assertTrue(share > 0 && share < 3, "all-reduce under 3% of the step: " + share);
        assertTrue(summary.contains("The measurement contradicts the question's premise: AllReduce (NCCL + custom) is "),
                summary);
        assertTrue(summary.contains("not about 50% (question.premise_share_pct)"), summary);
        for (JsonNode o : d.get("options")) {
            assertEquals("not_applicable", o.get("verdict").asText(), o.get("id").asText() + ": nothing is weighed");
        }
        JsonNode hw = check(d, "hardware-match");
        assertEquals("severe", hw.get("status").asText(), "hardware-match is a severe rule");
        assertTrue(hw.get("evidence").asText().contains("interconnect nvlink (device names: \"NVIDIA H200\": nvlink"),
                hw.get("evidence").asText());
        assertEquals("warning", check(d, "premise").get("status").asText());
        assertTrue(d.at("/facts/batch_source").asText().contains("question.batch"), "graph replays carry no shapes");
    }

    /**
     * The bundled NVLink scenario states its LL option as whatif changes (all-reduces x 0.27, the samples' 7.8 over
     * 29.3 µs a call): on the Simple sample the replay projects the LL sample's measured step, so the memo pursues it;
     * on the LL sample the same change cannot reach 1.05x.
     */
    @Test
    void theBundledNvlinkScenarioProjectsTheLlSamplesStepFromTheSimpleOne() throws Exception {
        Path samples = TestData.sampleTraces().resolve("h200-tp2-moe-decode");
        JsonNode ll = decide(samples.resolve("graph-nccl-ll"), "nvlink-tp-allreduce", "nvl-ll", "--format", "json");
        JsonNode simple = decide(samples.resolve("graph-nccl-simple"), "nvlink-tp-allreduce", "nvl-simple", "--format", "json");
        double llStep = ll.at("/facts/step_ms").asDouble();
        assertEquals("pursue", simple.get("decision").asText(), simple.get("summary").asText());
        assertEquals("nccl_ll", simple.get("option").asText());
        JsonNode o = option(simple, "nccl_ll");
        assertEquals(llStep, o.get("projected_step_ms").asDouble(), 0.05 * llStep, o.toString());
        JsonNode replay = o.get("replay");
        assertEquals("--scale allreduce=0.27", replay.get("changes").asText());
        assertEquals(simple.at("/facts/step_ms").asDouble(), replay.get("step_ms").asDouble(), 1e-9);
        assertEquals(o.get("projected_step_ms").asDouble(), replay.get("projected_step_ms").asDouble(), 1e-9);
        assertTrue(o.get("reason").asText().contains("Amdahl's bound"), o.get("reason").asText());
        assertTrue(option(simple, "fp8_allreduce").get("replay").isNull(), "a scale_bytes option is not replayed");
        assertEquals("violates_constraints", option(simple, "fp8_allreduce").get("verdict").asText());
        assertEquals("accept", ll.get("decision").asText(), ll.get("summary").asText());
        assertEquals("below_threshold", option(ll, "nccl_ll").get("verdict").asText());
    }

    /**
     * The bundled straggler scenario replays the capture with every rank at the fastest's pace: on a synthetic
     * capture with rank 1 at 1.3x, the projected step is the generator's step of the same capture without the slow
     * rank (within 2%), and a step-time part (comm_wait, not a kernel category) is the tax.
     */
    @Test
    void theBundledStragglerScenarioProjectsTheEvenCapturesStep() throws Exception {
        List<String> even = List.of("synth", "--preset", "moe-tp8-graph", "--ranks", "4", "--layers", "8", "--steps", "6",
                "--seed", "3", "--prefill-steps", "0", "--fixed-transfers", "-q");
        Path evenDir = tmp.resolve("even");
        Path slowDir = tmp.resolve("slow");
        List<String> a = new ArrayList<>(even);
        a.addAll(List.of("--out", evenDir.toString()));
        Cli.assertExit(0, Cli.run(a.toArray(new String[0])));
        List<String> b = new ArrayList<>(even);
        b.addAll(List.of("--out", slowDir.toString(), "--slow-rank", "1=1.3"));
        Cli.assertExit(0, Cli.run(b.toArray(new String[0])));
        double truth = truth(evenDir, null);
        JsonNode d = decide(slowDir, "straggler", "straggler", "--format", "json");
        assertEquals("comm_wait", d.at("/facts/category").asText());
        assertTrue(d.at("/facts/ms_per_step").asDouble() > 0, "the others wait for rank 1");
        JsonNode o = option(d, "balance_ranks");
        assertEquals(truth, o.get("projected_step_ms").asDouble(), 0.02 * truth, o.toString());
        assertEquals("--no-straggler", o.at("/replay/changes").asText());
        assertEquals("pursue", d.get("decision").asText(), d.get("summary").asText());
    }

    /** A scenario written for 2x H200 over NVLink decides on the same capture. */
    @Test
    void aScenarioForTheCapturesHardwareDecides() throws Exception {
        JsonNode d = decide(TestData.sampleTraces().resolve("h200-tp2-moe-decode/graph-nccl-ll"), nvlinkScenario(), "h200-nvl",
                "--format", "json");
        assertEquals("accept", d.get("decision").asText(), "removing 40% of 2.6% cannot reach 1.05x");
        assertEquals("ok", check(d, "hardware-match").get("status").asText(), check(d, "hardware-match").toString());
        assertEquals("ok", check(d, "premise").get("status").asText());
        assertEquals("below_threshold", option(d, "custom_allreduce").get("verdict").asText());
        assertFalse(d.get("summary").asText().contains("premise"), d.get("summary").asText());
    }

    /**
     * The eager capture (batch 16, no vLLM annotations): the batch comes from the input shapes of each decode
     * step's first GEMM (aten::matmul over [16, 7168], Input Dims in the trace), and the all-reduce regime from its message sizes: 16 tokens
     * x 7168 x 2 bytes = 229,376 B per call (record_param_comms: In msg nelems 114688, BFloat16).
     */
    @Test
    void theEagerCaptureGivesTheBatchFromShapesAndTheRegimeWithItsRule() throws Exception {
        Path eager = TestData.sampleTraces().resolve("h200-tp2-moe-eager/batch16-prefill256");
        JsonNode d = decide(eager, nvlinkScenario(), "eager-nvl", "--format", "json");
        assertEquals(16, d.at("/facts/batch").asInt());
        assertTrue(d.at("/facts/batch_source").asText().startsWith("capture: input shapes: aten::matmul [[16,7168],[7168,5120]]"),
                d.at("/facts/batch_source").asText());
        assertEquals(229376, d.at("/facts/msg_bytes").asDouble(), 1e-9);
        // 2 ranks: all-reduce bus factor 2 x (2 - 1) / 2 = 1; 229,376 B / 450 GB/s = 0.51 µs on the wire.
        assertEquals(229376 / 450e3, d.at("/facts/wire_us").asDouble(), 1e-9);
        assertEquals("latency", d.at("/facts/regime").asText());
        assertTrue(d.at("/facts/sources/regime").asText().contains("so latency-bound (the rule: under 20% of the call on the"
                + " wire latency-bound, 80% or more bandwidth-bound, mixed between)"), d.at("/facts/sources/regime").asText());

        // The PCIe scenario, told the capture stands in for its hardware: decided, and at 64 GB/s the same call is
        // 229,376 / 64,000 = 3.58 µs on the wire, between 20% and 80% of a ~10 µs call: mixed.
        Path standIn = tmp.resolve("stand-in.yaml");
        Files.writeString(standIn, new String(ScenarioLoader.class.getResourceAsStream(ScenarioLoader.RESOURCE_PATH + "pcie-allreduce-tax.yaml")
                .readAllBytes()).replace("  link_gbps: 64", "  link_gbps: 64\n  capture_stands_in: true"));
        JsonNode s = decide(eager, standIn.toString(), "eager-stand-in", "--format", "json");
        assertEquals("accept", s.get("decision").asText());
        assertEquals("info", check(s, "hardware-match").get("status").asText());
        assertEquals(229376 / 64e3, s.at("/facts/wire_us").asDouble(), 1e-9);
        double ratio = 229376 / 64e3 / s.at("/facts/mean_call_us").asDouble();
        assertTrue(ratio > 0.2 && ratio < 0.8, "the wire share: " + ratio);
        assertEquals("mixed", s.at("/facts/regime").asText());
        assertTrue(check(s, "collective-regime").get("summary").asText().startsWith(String.format(java.util.Locale.ROOT,
                "Mixed: %.0f%% of each call moves bytes", 100 * ratio)), check(s, "collective-regime").toString());
    }

    private static String nvlinkScenario() {
        return TestData.repoRoot().resolve("analyzer/src/test/resources/decide/h200-tp2-nvlink.yaml").toString();
    }

    private static JsonNode check(JsonNode d, String id) {
        for (JsonNode c : d.get("checks")) {
            if (c.get("id").asText().equals(id)) {
                return c;
            }
        }
        throw new AssertionError("no check " + id + " in " + d.get("checks"));
    }

    @Test
    void aScenarioWithAnAdmissibleOptionAbove15xIsPursued() throws Exception {
        Path scenario = tmp.resolve("custom-kernel.yaml");
        Files.writeString(scenario, """
                schema: steptrace.scenario/1
                title: A faster all-reduce kernel
                question:
                  tax: allreduce
                  min_speedup: 1.25
                hardware: {gpu: RTX PRO 6000 Blackwell, gpus: 8, interconnect: pcie, link_gbps: 64}
                constraints: {precision: no_reduction}
                options:
                  - id: one_shot_allreduce
                    title: One-shot all-reduce kernel
                    effect: {scale: 0.35}
                    evidence: microbenchmark of the new kernel, 8 GPUs, decode message sizes
                  - id: fp8
                    effect: {scale_bytes: 0.5}
                    violates: [precision]
                """);
        JsonNode d = decide(batch1, scenario.toString(), "pursue", "--format", "json,html");
        assertEquals("pursue", d.get("decision").asText());
        assertEquals("one_shot_allreduce", d.get("option").asText());
        // the step less 65% of the all-reduce time (scale 0.35), from the generator's ground truth
        double step = truth(batch1, null);
        double tax = truth(batch1, "allreduce");
        assertEquals(step / (step - 0.65 * tax), option(d, "one_shot_allreduce").get("projected_speedup").asDouble(), 0.02);
        assertEquals("custom-kernel", d.at("/scenario/id").asText());
        assertFalse(d.get("revisit_when").toString().contains("one_shot_allreduce"), "the pursued option needs no revisit");
        assertTrue(Files.isRegularFile(tmp.resolve("pursue").resolve("decision.html")));
        assertFalse(Files.exists(tmp.resolve("pursue").resolve("decision.md")));
    }

    /** GFM tables: every row of a table has the header's number of cells (no unescaped pipe inside a cell). */
    static void assertMarkdownTablesAreWellFormed(String md) {
        int cells = -1;
        for (String line : md.split("\n")) {
            if (!line.startsWith("|")) {
                cells = -1;
                continue;
            }
            int n = line.replace("\\|", "").split("\\|", -1).length;
            if (cells < 0) {
                cells = n;
            }
            assertEquals(cells, n, "cells in: " + line);
        }
    }
}
