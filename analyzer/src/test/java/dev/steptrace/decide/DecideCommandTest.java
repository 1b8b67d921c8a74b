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
 * {@code steptrace decide} end to end, on synthetic captures with the SPEC's breakdown (8 ranks,
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
        assertEquals(2.06, f.get("amdahl_max_speedup").asDouble(), 0.02);
        assertEquals(51.5, f.get("share_pct").asDouble(), 0.1);
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
        for (JsonNode o : d.get("options")) {
            assertTrue(o.get("derivation").asText().startsWith("21.70 ms (kernel ms per step)")
                    || o.get("derivation").asText().startsWith("(21.70 ms (kernel ms per step)"), o.get("derivation").asText());
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

    @Test
    void h200NvlinkSampleWarnsThatTheScenarioHardwareDiffers() throws Exception {
        JsonNode d = decide(TestData.sampleTraces().resolve("h200-tp2-moe-decode/graph-nccl-ll"), "pcie-allreduce-tax", "h200",
                "--format", "json");
        assertEquals("accept", d.get("decision").asText());
        double share = d.at("/facts/share_pct").asDouble();
        assertTrue(share > 0 && share < 3, "all-reduce under 3% of the step: " + share);
        assertEquals(1.03, d.at("/facts/amdahl_max_speedup").asDouble(), 0.01);
        assertEquals(List.of("NVIDIA H200"), List.of(d.at("/capture/devices/0").asText()));
        boolean warned = false;
        for (JsonNode w : d.get("warnings")) {
            warned |= w.get("code").asText().equals("hardware_mismatch") && w.get("message").asText().contains("NVIDIA H200")
                    && w.get("message").asText().contains("RTX PRO 6000");
        }
        assertTrue(warned, d.get("warnings").toString());
        assertTrue(d.at("/facts/batch_source").asText().contains("question.batch"), "ProfilerStep capture: batch from the scenario");
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
        assertEquals(1.5, option(d, "one_shot_allreduce").get("projected_speedup").asDouble(), 0.02);
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
