package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import java.util.List;
import java.util.Map;

/**
 * A decision memo: decision.json (schema {@value #SCHEMA}, docs/decision.schema.json) and the model the
 * HTML and Markdown templates render. Field names map to JSON in snake_case; a value the evidence
 * cannot support is null. Every number names where it came from: {@code facts.sources}, each option's
 * {@code derivation}, each check's {@code evidence}.
 *
 * @param decision {@code accept} (the tax stays), {@code pursue}, or {@code not_applicable} (the scenario's hardware is not
 *                 the capture's, and the scenario does not say the capture stands in for it)
 * @param option   the option to pursue, or null
 */
public record Decision(String schema, BottleneckReport.Tool tool, ScenarioRef scenario, CaptureRef capture,
                       QuestionOut question, String decision, String option, String summary, Facts facts,
                       List<OptionResult> options, List<Revisit> revisitWhen, List<Check> checks, Bench bench,
                       List<BottleneckReport.Warning> warnings) {
    public static final String SCHEMA = "steptrace.decision/1";
    public static final String ACCEPT = "accept";
    public static final String PURSUE = "pursue";
    public static final String NOT_APPLICABLE = "not_applicable";

    public record ScenarioRef(String id, String title, String source) {}

    /** @param steps steps per rank in the question's phase (mean over ranks) */
    public record CaptureRef(String path, String name, List<String> devices, Integer worldSize, List<Integer> ranks,
                             double steps, String stepSource) {}

    public record QuestionOut(String text, String phase, String tax, String taxLabel, double minSpeedup,
                              List<Integer> operatingBatches) {}

    /**
     * What the capture says about the tax.
     *
     * @param stepMs           kernel ms per step (what shares and speedups are of)
     * @param stepPeriodMs     GPU span plus the host gap before the step: the time a sequence waits per token
     * @param regime           latency, mixed, bandwidth or unknown (message sizes not in the trace, not a collective, or no
     *                         link bandwidth)
     * @param sources          per field above, where its number came from
     */
    public record Facts(String category, String subcategory, String label, String phase, double steps, int ranks,
                        double stepMs, Double stepPeriodMs, Double tokensPerSecPerSeq, double msPerStep, double sharePct,
                        Double amdahlMaxSpeedup, double callsPerStep, Double meanCallUs, Double msgBytes, Double wireUs,
                        Double linkGbps, String regime, Integer batch, String batchSource, Map<String, String> sources) {}

    /**
     * One option, projected.
     *
     * @param verdict    pursue, outranked, below_threshold, slower, violates_constraints, needs_hardware, not_evaluated or
     *                   not_applicable (the memo does not apply to the capture)
     * @param bound      the projection is an upper bound (e.g. compression with message sizes unknown)
     * @param derivation how the projected step was computed, with the scenario fields and capture numbers used
     */
    public record OptionResult(String id, String title, String field, Double projectedStepMs, Double projectedSpeedup,
                               Double projectedTokensPerSec, double tokensPerStep, List<String> violates,
                               String needsHardware, boolean admissible, String verdict, String reason,
                               String derivation, boolean bound, String evidence, List<BatchPoint> byBatch) {}

    /** An option evaluated at another batch size from its measured table (the rest of the step as captured). */
    public record BatchPoint(int batch, double perCallUs, String perCallText, double projectedStepMs,
                             double projectedSpeedup, boolean operating, boolean captured, String source) {}

    public record Revisit(String option, String when, String source) {}

    /**
     * A check in JDK Mission Control's rule style: a stable id, the threshold it applies, what it found
     * and the evidence.
     *
     * @param status ok, info or warn
     */
    public record Check(String id, String title, String status, Double value, Double threshold, String summary,
                        String evidence) {}

    public record Bench(List<String> files, List<BenchRun> runs, Integer plateauConcurrency, String plateauEvidence) {}

    /** One vLLM {@code bench serve} result; fields the file lacks are null. */
    public record BenchRun(String file, Integer maxConcurrency, Double requestThroughput, Double outputThroughput,
                           Double totalTokenThroughput, Double meanTtftMs, Double medianTtftMs, Double meanTpotMs,
                           Double medianTpotMs, Double medianItlMs, Integer completed, String modelId) {}
}
