package dev.steptrace.decide;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.steptrace.common.Identified;
import dev.steptrace.common.Labelled;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.List;
import java.util.Locale;
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
                       QuestionOut question, Choice decision, String option, String summary, Facts facts,
                       List<OptionResult> options, List<Revisit> revisitWhen, List<Check> checks, Bench bench,
                       List<BottleneckReport.Warning> warnings) {
    public static final String SCHEMA = "steptrace.decision/1";

    /** The memo's decision; the id is decision.json's. */
    public enum Choice implements Identified {
        ACCEPT,
        PURSUE,
        NOT_APPLICABLE;

        @Override
        public String toString() {
            return id();
        }
    }

    /** An option's verdict; the id is decision.json's, the label what the memo's table prints. */
    public enum Verdict implements Labelled {
        PURSUE("pursue"),
        OUTRANKED("admissible, outranked"),
        BELOW_THRESHOLD("below threshold"),
        SLOWER("slower"),
        VIOLATES_CONSTRAINTS("violates constraints"),
        NEEDS_HARDWARE("needs hardware"),
        NOT_EVALUATED("not evaluated"),
        NOT_APPLICABLE("not applicable"),
        /** Admissible and above the threshold, before the options are ranked: never in a memo. */
        CANDIDATE("candidate");

        private final String label;

        Verdict(String label) {
            this.label = label;
        }

        @Override
        public String label() {
            return label;
        }

        @Override
        public String toString() {
            return id();
        }
    }

    public record ScenarioRef(String id, String title, String source) {}

    /** @param steps steps per rank in the question's phase (mean over ranks) */
    public record CaptureRef(String path, String name, List<String> devices, Integer worldSize, List<Integer> ranks,
                             double steps, String stepSource) {}

    public record QuestionOut(String text, String phase, String tax, String taxLabel, double minSpeedup,
                              List<Integer> operatingBatches) {}

    /**
     * What the capture says about the tax, in named parts (decision.json has their fields side by side).
     *
     * @param batchSource where {@code batch} came from
     * @param sources     per field, where its number came from
     */
    public record Facts(@JsonUnwrapped Tax tax, @JsonUnwrapped StepFacts step, @JsonUnwrapped TaxShare share,
                        @JsonUnwrapped Wire wire, Integer batch, String batchSource, Map<String, String> sources) {}

    /** The tax the question asks about, in which phase. */
    public record Tax(String category, String subcategory, String label, String phase) {}

    /**
     * The phase's steps.
     *
     * @param stepMs       the step time (kernel ms per step without one): what shares and speedups are of
     * @param stepPeriodMs GPU span plus the host gap before the step: the time a sequence waits per token
     */
    public record StepFacts(double steps, int ranks, double stepMs, Double stepPeriodMs, Double tokensPerSecPerSeq) {}

    /** The tax's part of a step, and the most removing it could gain. */
    public record TaxShare(double msPerStep, double sharePct, Double amdahlMaxSpeedup, double callsPerStep,
                           Double meanCallUs) {}

    /**
     * The tax as a collective on the wire.
     *
     * @param regime latency, mixed, bandwidth or unknown (message sizes not in the trace, not a collective, or no
     *               link bandwidth)
     */
    public record Wire(Double msgBytes, Double wireUs, Double linkGbps, String regime) {}

    /**
     * One option: what it projects and how it was judged.
     *
     * @param byBatch the option at other batch sizes, from its measured table
     */
    public record OptionResult(String id, String title, String field, @JsonUnwrapped Projected projected,
                               @JsonUnwrapped Judgement judgement, List<BatchPoint> byBatch) {
        /** The same option judged again (when the options are ranked). */
        public OptionResult judged(Verdict verdict, String reason) {
            return new OptionResult(id, title, field, projected,
                    new Judgement(judgement.violates(), judgement.needsHardware(), judgement.admissible(), verdict, reason),
                    byBatch);
        }
    }

    /**
     * An option's projection.
     *
     * @param bound      the projection is an upper bound (e.g. compression with message sizes unknown)
     * @param derivation how the projected step was computed, with the scenario fields and capture numbers used
     */
    public record Projected(Double projectedStepMs, Double projectedSpeedup, Double projectedTokensPerSec,
                            double tokensPerStep, String derivation, boolean bound, String evidence, Replay replay) {}

    /**
     * An option stated as whatif changes: the phase's step as captured, as the replay under the changes projects it,
     * and Amdahl's bound for the same changes (ms), with why the two differ (null when they agree; docs/whatif.md).
     */
    public record Replay(String changes, double stepMs, double projectedStepMs, double amdahlStepMs, String difference) {}

    /**
     * An option against the question's constraints and threshold.
     *
     * @param verdict {@link Verdict}; {@code not_applicable} when the memo does not apply to the capture
     */
    public record Judgement(List<String> violates, String needsHardware, boolean admissible, Verdict verdict,
                            String reason) {}

    /** An option evaluated at another batch size from its measured table (the rest of the step as captured). */
    public record BatchPoint(int batch, double perCallUs, String perCallText, double projectedStepMs,
                             double projectedSpeedup, boolean operating, boolean captured, String source) {}

    public record Revisit(String option, String when, String source) {}

    /**
     * A check in JDK Mission Control's rule style: a stable id, the threshold it applies, what it found
     * and the evidence.
     *
     * @param status what the finding is: {@link Status#OK}, or its rule's severity
     */
    public record Check(String id, String title, Status status, Double value, Double threshold, String summary,
                        String evidence) {
        /** A result of the check whose catalogue entry is {@code rule}. */
        public Check(Rule rule, Status status, Double value, Double threshold, String summary, String evidence) {
            this(rule.id(), rule.summary(), status, value, threshold, summary, evidence);
        }
    }

    /**
     * What a check's result says, aligned with the severities of the rules (docs/warnings.md, "Severity"): nothing
     * to worry about, or a finding as much as its rule's severity says.
     */
    public enum Status {
        /** The check passed. */
        OK,
        INFO,
        WARNING,
        SEVERE;

        /** A finding of a rule of {@code severity}. */
        public static Status of(Severity severity) {
            return switch (severity) {
                case INFO -> INFO;
                case WARNING -> WARNING;
                case SEVERE -> SEVERE;
            };
        }

        /** The lower-case name decision.json and the memo print. */
        @JsonValue
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public record Bench(List<String> files, List<BenchRun> runs, Integer plateauConcurrency, String plateauEvidence) {}

    /** One vLLM {@code bench serve} result; fields the file lacks are null. */
    public record BenchRun(String file, Integer maxConcurrency, Double requestThroughput, Double outputThroughput,
                           Double totalTokenThroughput, Double meanTtftMs, Double medianTtftMs, Double meanTpotMs,
                           Double medianTpotMs, Double medianItlMs, Integer completed, String modelId) {}
}
