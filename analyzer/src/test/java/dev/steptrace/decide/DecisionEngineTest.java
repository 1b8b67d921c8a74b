package dev.steptrace.decide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.rules.Thresholds;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The engine on hand-built reports: the reference table of docs/synth.md with the bundled scenario (accept, 2.06x, EP
 * slower at batch 16, FP8 excluded, NVLink in the revisit list), the same scenario on the H200 NVLink
 * numbers, and small scenarios written here that make the decision go the other way. The engine
 * never sees a scenario's name: only its data.
 */
class DecisionEngineTest {
    private static final Scenario BUNDLED = ScenarioLoader.bundled("pcie-allreduce-tax");

    private static Decision decide(BottleneckReport r, CaptureBatch b, Scenario s) {
        return DecisionEngine.decide(r, b, s, null, Thresholds.defaults(), "test");
    }

    private static Decision.OptionResult option(Decision d, String id) {
        return d.options().stream().filter(o -> o.id().equals(id)).findFirst().orElseThrow();
    }

    private static Scenario yaml(String text) {
        return ScenarioParser.parse(text, "test.yaml", false);
    }

    @Test
    void specTableAtBatch16Accepts() {
        Decision d = decide(DecisionFixtures.spec(null), DecisionFixtures.batch(16), BUNDLED);
        assertEquals(Decision.Choice.ACCEPT, d.decision());
        assertNull(d.option());
        assertEquals(2.06, d.facts().share().amdahlMaxSpeedup(), 0.02);
        assertEquals(51.5, d.facts().share().sharePct(), 0.1);
        assertEquals(127, d.facts().share().callsPerStep());
        assertEquals(11.17, d.facts().share().msPerStep(), 1e-9);
        assertEquals("unknown", d.facts().wire().regime(), "graph replays carry no message sizes");
        assertEquals(16, d.facts().batch());

        Decision.OptionResult ep = option(d, "expert_parallel");
        assertTrue(ep.projected().projectedSpeedup() < 1, "EP at batch 16 is slower: " + ep.projected().projectedSpeedup());
        assertTrue(ep.projected().projectedStepMs() > 21.70);
        assertEquals(Decision.Verdict.SLOWER, ep.judgement().verdict());
        assertFalse(ep.judgement().admissible());
        // 21.70 - 61 x 87.95 µs + 122 x 1007 µs
        assertEquals(21.70 - 61 * 11.17 / 127 + 122 * 1.007, ep.projected().projectedStepMs(), 1e-6);
        assertTrue(ep.projected().derivation().contains("measured.all_to_all_us at batch 16"), ep.projected().derivation());
        assertTrue(ep.projected().derivation().contains("options[0].effect.replace.calls_per_step"), ep.projected().derivation());

        Decision.OptionResult fp8 = option(d, "fp8_collectives");
        assertFalse(fp8.judgement().admissible());
        assertEquals(List.of("precision"), fp8.judgement().violates());
        assertTrue(fp8.projected().bound(), "regime unknown: the saving is an upper bound");

        Decision.OptionResult nvlink = option(d, "nvlink");
        assertFalse(nvlink.judgement().admissible());
        assertEquals(Decision.Verdict.NEEDS_HARDWARE, nvlink.judgement().verdict());
        assertTrue(d.revisitWhen().stream().anyMatch(r -> r.when().contains("NVLink")), d.revisitWhen().toString());

        Decision.OptionResult spec = option(d, "speculative_decoding");
        assertEquals(Decision.Verdict.NOT_EVALUATED, spec.judgement().verdict());
        assertNull(spec.projected().projectedSpeedup(), "no speedup without tokens per step");
        assertTrue(d.revisitWhen().stream().anyMatch(r -> r.option().equals("speculative_decoding")
                && r.when().contains("tokens per sequence per step")));
    }

    @Test
    void specTableAtBatch1StillAcceptsBecauseEpCollapsesAtOperatingBatch16() {
        Decision d = decide(DecisionFixtures.spec(null), DecisionFixtures.batch(1), BUNDLED);
        assertEquals(Decision.Choice.ACCEPT, d.decision());
        Decision.OptionResult ep = option(d, "expert_parallel");
        assertTrue(ep.projected().projectedSpeedup() > 1, "at batch 1 (19-25 µs per op) EP is faster: " + ep.projected().projectedSpeedup());
        assertFalse(ep.judgement().admissible());
        assertTrue(ep.judgement().violates().contains("operating_batches"));
        Decision.BatchPoint at16 = ep.byBatch().stream().filter(b -> b.batch() == 16).findFirst().orElseThrow();
        assertTrue(at16.projectedSpeedup() < 1, "slower at batch 16");
        assertEquals(25, ep.byBatch().get(0).perCallUs(), "a range is projected at its high end");
        assertTrue(d.revisitWhen().stream().anyMatch(r -> r.option().equals("expert_parallel") && r.when().contains("batch 16")),
                d.revisitWhen().toString());
    }

    @Test
    void h200NvlinkCaptureIsNotWhatThePcieScenarioIsAbout() {
        Decision d = decide(DecisionFixtures.h200(), CaptureBatch.UNKNOWN, BUNDLED);
        assertEquals(Decision.Choice.NOT_APPLICABLE, d.decision());
        assertNull(d.option());
        assertTrue(d.summary().startsWith("Not applicable: the scenario's hardware is not the capture's"), d.summary());
        assertTrue(d.summary().contains("hardware.interconnect is pcie but the capture's GPUs are linked by nvlink"), d.summary());
        assertTrue(d.options().stream().allMatch(o -> o.judgement().verdict() == Decision.Verdict.NOT_APPLICABLE));
        assertEquals(2.5, d.facts().share().sharePct(), 0.3);
        assertEquals(1.03, d.facts().share().amdahlMaxSpeedup(), 0.01);
        assertEquals(1, d.facts().batch(), "from the scenario's question.batch");
        assertTrue(d.facts().batchSource().contains("question.batch"));
        assertTrue(d.warnings().stream().anyMatch(w -> w.code().equals("hardware_mismatch")
                && w.message().contains("NVIDIA H200") && w.message().contains("RTX PRO 6000")), d.warnings().toString());
        Decision.Check amdahl = d.checks().stream().filter(c -> c.id().equals("amdahl-bound")).findFirst().orElseThrow();
        assertTrue(amdahl.summary().contains("below the 1.10x threshold"), amdahl.summary());
    }

    @Test
    void anAdmissibleOptionAboveTheThresholdIsPursued() {
        Scenario s = yaml("""
                question: {tax: allreduce, min_speedup: 1.2}
                options:
                  - id: slow
                    effect: {scale: 0.9}
                  - id: smaller_messages
                    title: Smaller all-reduce messages
                    effect: {scale: 0.35}
                  - id: forbidden
                    effect: {remove: true}
                    violates: [budget]
                constraints: {budget: none}
                """);
        Decision d = decide(DecisionFixtures.spec(null), DecisionFixtures.batch(1), s);
        assertEquals(Decision.Choice.PURSUE, d.decision());
        assertEquals("smaller_messages", d.option());
        assertEquals(1.5, option(d, "smaller_messages").projected().projectedSpeedup(), 0.02);
        assertEquals(Decision.Verdict.PURSUE, option(d, "smaller_messages").judgement().verdict());
        assertEquals(Decision.Verdict.BELOW_THRESHOLD, option(d, "slow").judgement().verdict());
        assertEquals(Decision.Verdict.VIOLATES_CONSTRAINTS, option(d, "forbidden").judgement().verdict());
        assertTrue(d.summary().startsWith("Pursue Smaller all-reduce messages"), d.summary());
        assertTrue(d.revisitWhen().stream().noneMatch(r -> r.option().equals("smaller_messages")));
    }

    @Test
    void speculativeDecodingWithMeasuredTokensCountsTokensPerStep() {
        Scenario s = yaml("""
                question: {tax: allreduce, min_speedup: 1.1}
                options:
                  - id: spec
                    effect: {add_ms: 1.5, step_scale: 1.1, tokens_per_step: 2.0}
                """);
        Decision d = decide(DecisionFixtures.spec(null), DecisionFixtures.batch(1), s);
        double projected = (21.70 + 1.5) * 1.1;
        assertEquals(projected, option(d, "spec").projected().projectedStepMs(), 1e-9);
        assertEquals(2 * 21.70 / projected, option(d, "spec").projected().projectedSpeedup(), 1e-9);
        assertEquals(Decision.Choice.PURSUE, d.decision());
    }

    @Test
    void messageSizesSettleTheRegimeAndCompressionOfALatencyBoundCollectiveSavesNothing() {
        // 7168 hidden x 1 token x bf16 = 14,336 B per all-reduce, 88 µs per call, 64 GB/s link.
        Decision d = decide(DecisionFixtures.spec(14336.0), DecisionFixtures.batch(1), BUNDLED);
        assertEquals("latency", d.facts().wire().regime());
        assertEquals(14336 * 2.0 * 7 / 8 / 64000, d.facts().wire().wireUs(), 1e-9);
        Decision.OptionResult fp8 = option(d, "fp8_collectives");
        assertFalse(fp8.projected().bound());
        assertTrue(fp8.projected().projectedSpeedup() < 1.01, "halving 0.4 µs of an 88 µs call: " + fp8.projected().projectedSpeedup());
        assertTrue(d.revisitWhen().stream().noneMatch(r -> r.option().equals("fp8_collectives")),
                "relaxing precision would not help a latency-bound collective");
    }

    @Test
    void largeMessagesAreBandwidthBound() {
        // 29,360,128 B x 2 x 7/8 / 64 GB/s = 802.9 µs on the wire of a 900 µs call: 89%, 80% or more.
        BottleneckReport r = DecisionFixtures.report("prefill", DecisionFixtures.RTX, 8, 5, 470, 0.4, 29360128.0, List.of(
                DecisionFixtures.cat("allreduce", 114.3, 127), DecisionFixtures.cat("gemm", 88, 428)));
        Decision d = decide(r, DecisionFixtures.batch(1), BUNDLED);
        assertEquals("bandwidth", d.facts().wire().regime());
        assertEquals(29360128 * 2.0 * 7 / 8 / 64000, d.facts().wire().wireUs(), 1e-9);
    }

    @Test
    void aBurstTimingIsCheckedAgainstTheCapture() {
        Scenario s = yaml("""
                question: {tax: allreduce, min_speedup: 1.1}
                hardware: {link_gbps: 64, collective_latency_us: 20, gpus: 8}
                measured:
                  burst: {collective: allreduce, calls: 127, message_bytes: 14336, total_ms: 10.9, source: nccl-tests}
                  slow_burst: {calls: 10, total_ms: 2.0}
                options: []
                """);
        Decision d = decide(DecisionFixtures.spec(null), DecisionFixtures.batch(1), s);
        List<Decision.Check> bursts = d.checks().stream().filter(c -> c.id().equals("burst-consistency")).toList();
        assertEquals(2, bursts.size());
        assertEquals(Decision.Status.OK, bursts.get(0).status(), bursts.get(0).toString());
        assertTrue(bursts.get(0).evidence().contains("measured.burst: 127 calls in 10.9 ms = 85.8 µs per call"),
                bursts.get(0).evidence());
        assertEquals(Decision.Status.WARNING, bursts.get(1).status(), "200 µs per call against 88: " + bursts.get(1));
        assertTrue(d.facts().sources().get("regime").contains("hardware.collective_latency_us"));
    }

    @Test
    void replacingMoreCallsThanTheCaptureHasIsNotEvaluated() {
        Scenario s = yaml("""
                question: {tax: allreduce, min_speedup: 1.1}
                options:
                  - id: too_many
                    effect: {replace: {calls_per_step: 500, by: {per_call_us: 1}}}
                """);
        Decision.OptionResult o = option(decide(DecisionFixtures.spec(null), DecisionFixtures.batch(1), s), "too_many");
        assertEquals(Decision.Verdict.NOT_EVALUATED, o.judgement().verdict());
        assertNull(o.projected().projectedSpeedup());
        assertTrue(o.judgement().reason().contains("500 calls, but the capture has 127 allreduce calls per step"), o.judgement().reason());
    }

    @Test
    void aTableWithoutTheCapturesBatchLeavesTheOptionUnevaluated() {
        Decision d = decide(DecisionFixtures.spec(null), DecisionFixtures.batch(8), BUNDLED);
        Decision.OptionResult ep = option(d, "expert_parallel");
        assertEquals(Decision.Verdict.NOT_EVALUATED, ep.judgement().verdict());
        assertTrue(ep.judgement().reason().contains("measured.all_to_all_us has no value at batch 8"), ep.judgement().reason());
        assertFalse(ep.judgement().admissible());
    }

    @Test
    void unknownBatchIsAWarning() {
        Scenario s = yaml("""
                question: {tax: allreduce, min_speedup: 1.1}
                measured:
                  a2a: {by_batch: {1: 20}}
                options:
                  - id: ep
                    effect: {replace: {by: {per_call_us: {table: a2a}}}}
                """);
        Decision d = decide(DecisionFixtures.spec(null), CaptureBatch.UNKNOWN, s);
        assertNull(d.facts().batch());
        assertEquals(Decision.Verdict.NOT_EVALUATED, option(d, "ep").judgement().verdict());
        assertTrue(d.warnings().stream().anyMatch(w -> w.code().equals("batch_unknown")));
    }

    @Test
    void aSubcategoryCanBeTheTax() {
        Scenario s = yaml("""
                question: {tax: allreduce/custom, min_speedup: 1.1}
                options: []
                """);
        Decision d = decide(DecisionFixtures.spec(null), DecisionFixtures.batch(1), s);
        assertEquals(10.99, d.facts().share().msPerStep(), 1e-9);
        assertEquals("custom", d.facts().tax().subcategory());
        assertEquals(122, d.facts().share().callsPerStep());
        assertEquals(Decision.Choice.ACCEPT, d.decision());
    }

    @Test
    void aPhaseTheCaptureLacksIsAClearError() {
        Scenario s = yaml("""
                question: {tax: allreduce, min_speedup: 1.1, phase: prefill}
                options: []
                """);
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> decide(DecisionFixtures.spec(null), DecisionFixtures.batch(1), s));
        assertEquals("capture kimi-tp8 has no prefill steps with kernel time (phases in it: decode); test.yaml asks about"
                + " prefill (question.phase)", e.getMessage());
    }
}
