package dev.steptrace.decide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testsupport.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenario files: the bundled one parses with the reference facts; every malformed file is one line
 * naming the file and the field, and on the command line exits 1 before any trace is read.
 */
class ScenarioParserTest {
    private static final String OK = """
            question: {tax: allreduce, min_speedup: 1.1}
            constraints: {precision: no_reduction}
            measured:
              a2a: {by_batch: {1: [19, 25], 16: 1007}}
            options:
              - id: ep
                effect: {replace: {calls_per_step: 61, by: {calls_per_step: 122, per_call_us: {table: a2a}}}}
              - id: fp8
                effect: {scale_bytes: 0.5}
                violates: [precision]
              - id: x
                effect: {scale: 0.5}
            """;

    @TempDir
    Path tmp;

    @Test
    void bundledScenarioHoldsTheSpecFacts() {
        Scenario s = ScenarioLoader.load("pcie-allreduce-tax");
        assertEquals("pcie-allreduce-tax", s.id());
        assertEquals("pcie-allreduce-tax (bundled)", s.source());
        assertEquals("allreduce", s.question().tax());
        assertEquals("decode", s.question().phase());
        assertEquals("pcie", s.hardware().interconnect());
        assertEquals(8, s.hardware().gpus());
        assertEquals("no_reduction", s.constraints().get("precision"));
        Scenario.Table a2a = (Scenario.Table) s.measured().get("all_to_all_us");
        assertEquals(25, a2a.at(1));
        assertEquals("19-25", a2a.text(1));
        assertEquals(1007, a2a.at(16));
        assertEquals(4, s.options().size());
        assertTrue(s.options().stream().anyMatch(o -> o.violates().contains("precision")));
        assertTrue(s.options().stream().anyMatch(o -> o.effect().needsHardware() != null
                && o.effect().needsHardware().contains("NVLink")));
        assertTrue(s.options().stream().anyMatch(o -> o.effect().tokensPerStepUnknown()));
    }

    @Test
    void aWellFormedFileParsesAndJsonToo() throws Exception {
        Scenario s = ScenarioParser.parse(OK, "s.yaml", false);
        assertEquals(3, s.options().size());
        assertEquals("a2a", s.options().get(0).effect().replace().perCallTable());
        String json = """
                {"question": {"tax": "allreduce", "min_speedup": 1.1},
                 "options": [{"id": "x", "effect": {"scale": 0.5}}]}
                """;
        Path f = tmp.resolve("s.json");
        Files.writeString(f, json);
        Scenario fromJson = ScenarioLoader.load(f.toString());
        assertEquals("s", fromJson.id(), "the file name when the scenario has no id");
        assertEquals(0.5, fromJson.options().get(0).effect().scale());
    }

    /** An option stated as whatif changes, and a tax that is a part of the step time rather than a kernel category. */
    @Test
    void whatIfChangesAndStepPartTaxesParse() {
        Scenario s = ScenarioParser.parse("""
                question: {tax: idle_launch, min_speedup: 1.1}
                options:
                  - id: graphs
                    effect:
                      whatif: {launch_overhead_us: 0, scale: {moe_gemm: 0.5}, scale_kernels: {"^nccl": 0}, no_straggler: true,
                               cpu_scale: 0.8, busbw_gbps: {allreduce: 300}}
                """, "s.yaml", false);
        assertEquals("idle_launch", s.question().tax());
        assertEquals(List.of("--scale moe_gemm=0.5", "--scale-kernels ^nccl=0", "--busbw allreduce=300",
                "--launch-overhead 0", "--no-straggler", "--cpu-scale 0.8"), s.options().get(0).effect().whatIf().describe());
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {scale: half}"),
                        "scenario.yaml: options[2].effect.scale: expected a number, got \"half\""),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {scael: 0.5}"),
                        "scenario.yaml: options[2].effect.scael: unknown field (expected one of category, remove, scale, "
                                + "scale_bytes, replace, whatif, add_ms, step_scale, tokens_per_step, needs_hardware)"),
                Arguments.of(OK.replace("violates: [precision]", "violates: [quality]"),
                        "scenario.yaml: options[1].violates[0]: no constraint named \"quality\" (constraints: precision)"),
                Arguments.of(OK.replace("{table: a2a}", "{table: a2b}"),
                        "scenario.yaml: options[0].effect.replace.by.per_call_us.table: no measured table named \"a2b\" (measured: a2a)"),
                Arguments.of(OK.replace("- id: x", "- id: ep"),
                        "scenario.yaml: options[2].id: \"ep\" is the id of an earlier option too"),
                Arguments.of(OK.replace("tax: allreduce", "tax: allredcue"),
                        "scenario.yaml: question.tax: unknown category \"allredcue\" (expected one of allreduce, comm_other, "
                                + "attention, moe_gemm, gemm, routing, memcpy, other, optionally with /subcategory)"),
                Arguments.of(OK.replace("min_speedup: 1.1", "min_speedup: 0.9"),
                        "scenario.yaml: question.min_speedup: expected a speedup of at least 1 (1.10 means 10% faster), got 0.9"),
                Arguments.of(OK.replace("question: {tax: allreduce, min_speedup: 1.1}\n", ""),
                        "scenario.yaml: question: missing (required)"),
                Arguments.of(OK.replace("16: 1007", "sixteen: 1007"),
                        "scenario.yaml: measured.a2a.by_batch.sixteen: expected a batch size (a whole number above 0) as the key"),
                Arguments.of(OK.replace("[19, 25]", "[25, 19]"),
                        "scenario.yaml: measured.a2a.by_batch.1: a range is [low, high]; got low 25 above high 19"),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {scale: 0.5, remove: true}"),
                        "scenario.yaml: options[2].effect.scale: an effect takes one of remove, scale, scale_bytes, replace and "
                                + "whatif, not remove and scale (split it into two options)"),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {whatif: {scale: {allredcue: 0.5}}}"),
                        "scenario.yaml: options[2].effect.whatif.scale.allredcue: unknown category \"allredcue\""),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {whatif: {scale_kernels: {\"nccl(\": 0.5}}}"),
                        "scenario.yaml: options[2].effect.whatif.scale_kernels: not a regular expression: \"nccl(\""),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {whatif: {no_straggler: yes please}}"),
                        "scenario.yaml: options[2].effect.whatif.no_straggler: expected true or false, got \"yes please\""),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {whatif: {}}"),
                        "scenario.yaml: options[2].effect.whatif: expected at least one change"),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {whatif: {busbw_gbps: {allreduce: 0}}}"),
                        "scenario.yaml: options[2].effect.whatif.busbw_gbps.allreduce: expected a bus bandwidth above 0 GB/s, got 0"),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {whatif: {launch_overhead_us: 0}, scale: 0.5}"),
                        "scenario.yaml: options[2].effect.whatif: an effect takes one of remove, scale, scale_bytes, replace "
                                + "and whatif, not scale and whatif (split it into two options)"),
                Arguments.of(OK.replace("effect: {scale: 0.5}", "effect: {tokens_per_step: 0}"),
                        "scenario.yaml: options[2].effect.tokens_per_step: expected tokens per sequence per step above 0 "
                                + "(1 without speculation), got 0"),
                Arguments.of(OK.replace("options:\n", "options:\n  oops: 1\n"),
                        "scenario.yaml: line 7, column 3: not valid YAML: expected <block end>, but found '-'"),
                Arguments.of(OK + "question: {tax: gemm, min_speedup: 1.1}\n",
                        "scenario.yaml: line 13, column 9: not valid YAML: Duplicate field 'question'"),
                Arguments.of("- just\n- a list\n",
                        "scenario.yaml: expected a mapping (question, options, ...) at the top level, got a list"),
                Arguments.of("", "scenario.yaml: the file is empty (docs/scenarios.md shows a full example)"),
                Arguments.of("schema: steptrace.scenario/2\n" + OK,
                        "scenario.yaml: schema: expected \"steptrace.scenario/1\", got \"steptrace.scenario/2\""),
                Arguments.of(OK.replace("question: {tax: allreduce, min_speedup: 1.1}",
                                "question: {tax: allreduce, min_speedup: 1.1, operating_batches: [1, 0]}"),
                        "scenario.yaml: question.operating_batches[1]: expected a whole number above 0, got 0"));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void malformedScenariosNameTheFileAndTheField(String text, String expected) {
        ScenarioException e = assertThrows(ScenarioException.class, () -> ScenarioParser.parse(text, "scenario.yaml", false));
        assertTrue(e.getMessage().startsWith(expected), () -> "got: " + e.getMessage() + "\nwanted: " + expected);
        assertEquals(1, e.getMessage().lines().count(), "one line");
    }

    @Test
    void onTheCommandLineAMalformedScenarioExitsOneBeforeReadingTraces() throws Exception {
        Path scenario = tmp.resolve("scenario.yaml");
        Files.writeString(scenario, OK.replace("effect: {scale: 0.5}", "effect: {scale: half}"));
        // The capture does not exist: the scenario is checked first.
        Cli.Result r = Cli.run("decide", tmp.resolve("no-such-capture").toString(), "--scenario", scenario.toString(),
                "--db", tmp.resolve("s.duckdb").toString(), "--out", tmp.resolve("out").toString());
        Cli.assertExit(1, r);
        assertEquals("steptrace: " + scenario + ": options[2].effect.scale: expected a number, got \"half\"", r.err().strip());
        assertTrue(Files.notExists(tmp.resolve("out")), "nothing written");
    }

    @Test
    void unknownScenarioNamesAndFilesAreClear() {
        Cli.Result r = Cli.run("decide", tmp.toString(), "--scenario", "pcie-tax", "--db", tmp.resolve("s.duckdb").toString());
        Cli.assertExit(1, r);
        assertEquals("steptrace: no scenario file or bundled scenario named \"pcie-tax\" (bundled: pcie-allreduce-tax, nvlink-tp-allreduce, host-bound-decode, straggler)",
                r.err().strip());
        Cli.Result f = Cli.run("decide", tmp.toString(), "--scenario", "missing.yaml", "--db", tmp.resolve("s.duckdb").toString());
        Cli.assertExit(1, f);
        assertEquals("steptrace: missing.yaml: no such scenario file", f.err().strip());
    }

    @Test
    void benchFilesThatAreNotBenchResultsNameTheFileAndField() throws Exception {
        Path bad = tmp.resolve("bench.json");
        Files.writeString(bad, "{\"max_concurrency\": 8, \"output_throughput\": \"fast\"}");
        ScenarioException e = assertThrows(ScenarioException.class, () -> BenchResults.load(java.util.List.of(bad)));
        assertEquals(bad + ": output_throughput: expected a number, got \"fast\"", e.getMessage());
        Path other = tmp.resolve("other.json");
        Files.writeString(other, "{\"traceEvents\": []}");
        e = assertThrows(ScenarioException.class, () -> BenchResults.load(java.util.List.of(other)));
        assertTrue(e.getMessage().startsWith(other + ": output_throughput: missing; not a vLLM bench serve result"), e.getMessage());
    }
}
