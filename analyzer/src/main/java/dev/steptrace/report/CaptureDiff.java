package dev.steptrace.report;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.steptrace.common.Labelled;
import dev.steptrace.report.BottleneckReport.PartialFile;
import dev.steptrace.report.BottleneckReport.Tool;
import dev.steptrace.report.BottleneckReport.Warning;
import java.util.List;
import java.util.Map;

/**
 * Two captures compared phase by phase: diff.json (schema {@value #SCHEMA}, docs/diff.schema.json,
 * method in docs/diff.md) and the model the diff templates render. Field names map to JSON in
 * snake_case. A is the baseline, B the candidate: every delta is B - A, so a negative delta is time
 * saved.
 *
 * @param phases phases present in both captures, in report order (decode, prefill, mixed, unknown)
 */
public record CaptureDiff(String schema, Tool tool, Side a, Side b, Method method, Map<String, PhaseDiff> phases,
                          List<Warning> warnings) {
    public static final String SCHEMA = "steptrace.diff/1";

    /** A phase's verdict (docs/diff.md, "Verdict"): the id is diff.json's, the label what the diff prints. */
    public enum Verdict implements Labelled {
        FASTER,
        SLOWER,
        NO_SIGNIFICANT_CHANGE;

        /** The id in words: {@code no significant change}. */
        @Override
        public String label() {
            return id().replace('_', ' ');
        }

        @Override
        public String toString() {
            return id();
        }
    }

    /**
     * One capture as the diff saw it.
     *
     * @param steps steps per rank in each phase (mean over ranks)
     */
    public record Side(String path, String name, String format, int files, List<Integer> ranks, Integer worldSize,
                       List<String> devices, List<PartialFile> partialFiles, String stepSource,
                       Map<String, Double> steps, List<Warning> warnings) {}

    /**
     * How intervals and significance were computed (docs/diff.md).
     *
     * @param interval        {@code percentile_bootstrap}
     * @param resampleUnit    {@code step}: a resample draws step indices, each bringing every rank's value
     * @param noiseFloorPct      a significant change exceeds this percentage of the A value,
     * @param noiseFloorStepPct  and this percentage of A's kernel time per step in the phase
     * @param noiseFloorSmallPct or else this percentage of the A value,
     * @param noiseFloorMinMs    and this many ms per step
     */
    public record Method(String interval, String resampleUnit, int resamples, long seed, double confidence,
                         double noiseFloorPct, double noiseFloorStepPct, double noiseFloorSmallPct,
                         double noiseFloorMinMs, String kernelNames) {}

    /**
     * One phase. {@code verdict}: from the step time (docs/diff.md, "Verdict"); from the kernel time and span per
     * step where a side has no step time.
     */
    public record PhaseDiff(Verdict verdict, double stepsA, double stepsB, StepTimeDiff stepTime, Delta kernelMsPerStep,
                            Delta spanMsPerStep, List<CategoryDelta> categories, List<KernelDelta> kernels,
                            List<CollectiveDelta> collectives) {}

    /**
     * The step time in A and B with its change and interval (the fields of a {@link Delta}), the parts that
     * moved (largest change first), the rank that sets the pace and the straggler on each side, and the share
     * of communication hidden under other work.
     */
    public record StepTimeDiff(@JsonUnwrapped Delta change, List<PartDelta> parts, RankPair paceRank,
                               RankPair straggler, ValuePair commHiddenPct) {}

    /** A part of the step time ({@code name}: as the store's {@code step_time_parts.part}) in A and B. */
    public record PartDelta(String name, String label, double aMsPerStep, double bMsPerStep, double deltaMs,
                            Double deltaPct, List<Double> ci95Ms, double noiseFloorMs, boolean significant) {}

    /** A rank on each side (null: none). */
    public record RankPair(Integer a, Integer b) {}

    /** A value on each side (null: none). */
    public record ValuePair(Double a, Double b) {}

    /**
     * A per-step quantity in A and B (mean over ranks of each rank's mean over its steps), the change
     * B - A, its 95% bootstrap interval (null when either side has fewer than two steps), the noise
     * floor the change had to exceed, and whether it is significant.
     */
    public record Delta(Double a, Double b, Double deltaMs, Double deltaPct, List<Double> ci95Ms, double noiseFloorMs,
                        boolean significant) {}

    /** A headline category: ms and calls per step in A and B, the change and its interval. */
    public record CategoryDelta(String id, String label, double aMsPerStep, double bMsPerStep, double deltaMs,
                                Double deltaPct, List<Double> ci95Ms, double noiseFloorMs, boolean significant,
                                double aCallsPerStep, double bCallsPerStep, List<SubcategoryDelta> subcategories) {}

    public record SubcategoryDelta(String id, double aMsPerStep, double bMsPerStep, double deltaMs, Double deltaPct,
                                   List<Double> ci95Ms, double noiseFloorMs, boolean significant,
                                   double aCallsPerStep, double bCallsPerStep) {}

    /**
     * A kernel matched across the captures by its normalized name ({@code name}); {@code rawNames} are
     * the names as the traces spell them (at most five). {@code change}: {@code added} (only in B),
     * {@code removed} (only in A) or {@code changed}; {@code callsChanged} when calls per step moved by
     * half a call or more. In diff.json the fields of {@code time} and {@code calls} stand in the kernel's object.
     */
    public record KernelDelta(String name, List<String> rawNames, String category, String subcategory, String change,
                              @JsonUnwrapped MsPerStepDelta time, @JsonUnwrapped CallsDelta calls) {}

    /**
     * Milliseconds per step in A and B, the change B - A, its 95% bootstrap interval (null when either side has
     * fewer than two steps), the noise floor the change had to exceed, and whether it is significant.
     */
    public record MsPerStepDelta(double aMsPerStep, double bMsPerStep, double deltaMs, Double deltaPct,
                                 List<Double> ci95Ms, double noiseFloorMs, boolean significant) {}

    /**
     * Calls per step in A and B and the change ({@code callsChanged}: by half a call or more), and the mean
     * duration of a call on each side (null where a side has no calls).
     */
    public record CallsDelta(double aCallsPerStep, double bCallsPerStep, double deltaCallsPerStep,
                             boolean callsChanged, Double aMeanUs, Double bMeanUs) {}

    /** One collective type: each side as the report has it (null when absent there), and the changes. */
    public record CollectiveDelta(String type, CollectiveSide a, CollectiveSide b, Double deltaMeanUs,
                                  Double deltaMeanPct, Double deltaBusbwGbps, Double deltaWaitMsPerStep,
                                  Double deltaTransferMsPerStep) {}

    public record CollectiveSide(double callsPerStep, double meanUs, Double msgBytesMedian, Double busbwGbps,
                                 Double waitMsPerStep, Double transferMsPerStep) {}
}
