package dev.steptrace.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.KeptAnalysis;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bottleneck report of one capture: report.json (schema {@value #SCHEMA}, docs/reports.md,
 * docs/report.schema.json) and the model the HTML and Markdown templates render. Field names map to
 * JSON in snake_case; a value the trace cannot support is null, never invented.
 *
 * @param phases per phase id ({@code decode}, {@code prefill}, {@code mixed}, {@code unknown}), in that order
 */
public record BottleneckReport(String schema, Tool tool, Capture capture, Map<String, PhaseSummary> phases,
                               List<Collective> collectives, List<RankSummary> ranks, List<Warning> warnings) {
    public static final String SCHEMA = "steptrace.report/1";

    public record Tool(String name, String version) {}

    /**
     * @param format    kineto, nsys-sqlite, nsys-parquet or nsys-arrow
     * @param worldSize from the traces' distributed metadata; null when none says
     */
    public record Capture(String path, String name, String format, int files, List<Integer> ranks,
                          Integer worldSize, List<String> devices, List<PartialFile> partialFiles) {}

    public record PartialFile(String file, String reason) {}

    /**
     * One phase across ranks.
     *
     * @param steps steps per rank (mean over ranks)
     */
    public record PhaseSummary(double steps, String stepSource, StepTime stepTime, Stat kernelMsPerStep,
                        Stat spanMsPerStep, Stat busyMsPerStep, Stat hostGapMsPerStep, Stat computeMsPerStep,
                        List<CategoryShare> categories, List<TopKernel> topKernels, List<Straggler> stragglers,
                        Overlap overlap, HostBound hostBound, PhaseRoofline roofline, LaunchContexts launchContexts) {
        /** A phase without roofline figures and launch contexts. */
        public PhaseSummary(double steps, String stepSource, StepTime stepTime, Stat kernelMsPerStep,
                     Stat spanMsPerStep, Stat busyMsPerStep, Stat hostGapMsPerStep, Stat computeMsPerStep,
                     List<CategoryShare> categories, List<TopKernel> topKernels, List<Straggler> stragglers,
                     Overlap overlap, HostBound hostBound) {
            this(steps, stepSource, stepTime, kernelMsPerStep, spanMsPerStep, busyMsPerStep, hostGapMsPerStep,
                    computeMsPerStep, categories, topKernels, stragglers, overlap, hostBound, null, null);
        }
    }

    /**
     * A phase's kernel time by what enclosed the launch calls (docs/reports.md, "By op, annotation and module").
     *
     * @param contextClassifiedMsPerStep    time of kernels whose class came from their context, not their name alone
     * @param contextClassifiedCallsPerStep their calls per step
     * @param byOp         the innermost CPU ops around the launches, most time first
     * @param byAnnotation the innermost user annotations (record_function) around them
     * @param byModule     the innermost nn.Module ranges around them (traces with modules, python functions kept)
     */
    public record LaunchContexts(double contextClassifiedMsPerStep, double contextClassifiedCallsPerStep,
                                 List<ContextRow> byOp, List<ContextRow> byAnnotation, List<ContextRow> byModule) {}

    /** One op, annotation or module: its kernels' time and calls per step, and the kernels with the most time. */
    public record ContextRow(String name, double msPerStep, double callsPerStep, List<ContextKernel> kernels) {}

    /** A kernel under an op, annotation or module: its time and calls per step there. */
    public record ContextKernel(String name, double msPerStep, double callsPerStep) {}

    /**
     * Where a phase's steps go (docs/reports.md, "Step time"): the wall time per step and the parts it is made
     * of, summing to it, means over ranks; beside them the rank that sets the pace and its own parts.
     *
     * @param msPerStep     the step time: per rank the mean over its steps, then the mean over ranks
     * @param stepMs        the step time's distribution (mean, median, p90 over each rank's steps, over ranks)
     * @param paceRank      the rank whose own time makes the step: the most step time outside waits for other
     *                      ranks at collectives (the only rank of a one-rank capture)
     * @param paceReason    why that rank sets the pace, in words
     * @param parts         the parts, largest first ({@code name}: a kernel category id, {@code comm_*}, {@code idle_*})
     * @param paceParts     the pace rank's own parts, largest first
     * @param commHiddenMsPerStep communication hidden under other work (counted in that work's parts)
     * @param launchesPerStep     eager launch calls of the step's GPU work, per step
     * @param graphLaunchesPerStep CUDA graph launches, per step
     * @param hostSyncs     host-sync calls per step by the op that issued them, most idle caused first
     * @param idleCpuOps    the CPU ops that ran while the GPU was idle, most idle time first
     * @param finding       the largest part, its cause and what to do about it, in one sentence
     */
    public record StepTime(double msPerStep, Stat stepMs, Integer paceRank, String paceReason, List<PartShare> parts,
                           List<PartShare> paceParts, List<PartShare> criticalPath, double commHiddenMsPerStep, double launchesPerStep,
                           double graphLaunchesPerStep, List<HostSync> hostSyncs, List<IdleCpuOp> idleCpuOps,
                           String finding) {}

    /**
     * One part of the step time: {@code name} as the store's {@code step_time_parts.part} (of the critical path:
     * {@code critical_path.part}), ms per step, share of the step.
     */
    public record PartShare(String name, String label, double msPerStep, double sharePct) {}

    /**
     * Host-sync calls of one kind issued by one op, per step (means over ranks).
     *
     * @param op            the CPU op around the call (innermost); null when the trace does not say
     * @param idleMsPerStep GPU idle time they caused (part {@code idle_sync})
     */
    public record HostSync(String call, String op, double callsPerStep, double callMsPerStep, double idleMsPerStep) {}

    /** A CPU op (or Python function) that ran while the GPU was idle: that idle time and its calls, per step. */
    public record IdleCpuOp(String name, String kind, double idleMsPerStep, double callsPerStep) {}

    /**
     * Communication under other GPU work (docs/reports.md, "Overlap"), ms per step, means over ranks.
     *
     * @param commMsPerStep   the union of the step's communication kernels (allreduce and comm_other)
     * @param hiddenMsPerStep the part of it during which other operations ran on other streams
     * @param hiddenPct       hidden as a share of communication
     */
    public record Overlap(double commMsPerStep, double hiddenMsPerStep, double exposedMsPerStep, double hiddenPct) {}

    /**
     * Whether the GPU waits for the CPU (docs/reports.md, "Host-bound steps"), ms per step, means over ranks.
     *
     * @param idleMsPerStep       GPU idle inside the step: span minus busy
     * @param launchWaitMsPerStep the part of it after which the next operation was launched only once the GPU
     *                            was idle (null when the trace has no launch calls)
     * @param launchWaitPctOfSpan launch wait as a share of the span
     * @param launchBound         whether that share reaches the launch-bound threshold
     * @param launchDelays        per category, from an eager launch call's start to its operation's start
     * @param graphReplaysPerStep CUDA graph replays with kernels per step (0 when every kernel is launched eagerly)
     * @param graphReplayGapUs    GPU time between consecutive replays, µs (null with fewer than two)
     */
    public record HostBound(double idleMsPerStep, Double launchWaitMsPerStep, Double otherIdleMsPerStep,
                            Double launchWaitPctOfSpan, Boolean launchBound, List<LaunchDelay> launchDelays,
                            double graphReplaysPerStep, PerStep graphReplayGapUs) {}

    /** Launch delay of one category's eagerly launched operations: launches per step, mean, median and p90 µs. */
    public record LaunchDelay(String category, double launchesPerStep, double meanUs, double medianUs, double p90Us) {}

    /**
     * A rank that arrived last at some of a phase's collective instances (docs/reports.md, "Stragglers").
     *
     * @param straggler           whether the rank passes the rule that names a phase's straggler
     * @param lateSharePct        share of the phase's matched collective instances at which it arrived last
     * @param causedWaitMsPerStep the other ranks' wait at those instances, per step and per waiting rank
     * @param causedWaitSharePct  share of all the phase's collective wait
     * @param where               for the straggler: the call sites where it causes the most wait; else empty
     * @param afterCategories     for the straggler: the wait it causes by the category it was busy with
     *                            before arriving (most time since its previous collective); else empty
     */
    public record Straggler(int rank, boolean straggler, long lateInstances, double lateSharePct,
                            double causedWaitMsPerStep, double causedWaitSharePct, List<StragglerSpot> where,
                            List<CategoryWait> afterCategories) {}

    /**
     * A collective call site: the {@code index}-th collective of {@code type} in the step (from 0).
     *
     * @param lateSharePct  share of the site's instances at which the rank arrived last
     * @param afterCategory the category the rank was busy with before arriving (most caused wait)
     */
    public record StragglerSpot(String type, int index, double lateSharePct, double causedWaitMsPerStep,
                                String afterCategory) {}

    /** Caused wait attributed to the category that preceded the late arrivals. */
    public record CategoryWait(String category, double causedWaitMsPerStep, double sharePct) {}

    /**
     * A per-step quantity: mean, median and p90 over a rank's steps, averaged over ranks; min and max
     * name the ranks with the lowest and highest mean.
     */
    public record Stat(Double mean, Double median, Double p90, RankValue min, RankValue max) {}

    public record RankValue(int rank, double value) {}

    /** A headline category's time: share of total kernel time, calls per step. */
    public record CategoryShare(String id, String label, double msPerStep, double sharePct, double callsPerStep,
                                List<SubcategoryShare> subcategories, @JsonUnwrapped Roofline roofline) {
        /** No figures is {@link Roofline#NONE}: report.json then says null for each, and reads back the same. */
        public CategoryShare {
            roofline = roofline == null ? Roofline.NONE : roofline;
        }

        /** A category without roofline figures (per-rank breakdowns, fixtures). */
        public CategoryShare(String id, String label, double msPerStep, double sharePct, double callsPerStep,
                             List<SubcategoryShare> subcategories) {
            this(id, label, msPerStep, sharePct, callsPerStep, subcategories, null);
        }

        public CategoryShare withRoofline(Roofline r) {
            return new CategoryShare(id, label, msPerStep, sharePct, callsPerStep, subcategories, r);
        }
    }

    public record SubcategoryShare(String id, double msPerStep, double callsPerStep) {}

    public record TopKernel(String name, String category, String subcategory, String rule, double msPerStep,
                            double callsPerStep, double meanUs, @JsonUnwrapped Roofline roofline) {
        public TopKernel {
            roofline = roofline == null ? Roofline.NONE : roofline;
        }

        /** A kernel without roofline figures. */
        public TopKernel(String name, String category, String subcategory, String rule, double msPerStep,
                         double callsPerStep, double meanUs) {
            this(name, category, subcategory, rule, msPerStep, callsPerStep, meanUs, null);
        }

        public TopKernel withRoofline(Roofline r) {
            return new TopKernel(name, category, subcategory, rule, msPerStep, callsPerStep, meanUs, r);
        }
    }

    /**
     * How close a category or kernel came to the hardware (docs/roofline.md): its work per step (FLOPs,
     * bytes), the rates achieved, FLOPs per byte, the bound that applies ({@code compute}, {@code memory}
     * or {@code interconnect}) and the share of the bound's time its measured time is. With a model file,
     * the decode step's floor and measured / floor. Fields the trace, the peaks or the model cannot
     * support are null.
     *
     * @param workSource      {@code trace} (shapes, collective sizes), {@code model} (the model file: a step
     *                        without shapes), or null
     * @param workCoveragePct share of the category's kernel time whose work the trace gives
     */
    public record Roofline(Double flopsPerStep, Double bytesPerStep, Double achievedTflops, Double achievedGbps,
                           Double arithmeticIntensity, String bound, Double pctOfBound, Double floorMsPerStep,
                           Double measuredOverFloor, String workSource, Double workCoveragePct) {
        /** Nothing known. */
        public static final Roofline NONE = new Roofline(null, null, null, null, null, null, null, null, null, null, null);
    }

    /**
     * A phase's roofline context: the GPU the trace names, the peaks matched to it (null: unknown peak),
     * the model file's name and decode workload, its floors per category, and the kernels that lose the
     * most time per step to their bound.
     */
    public record PhaseRoofline(String device, DevicePeakRates peaks, String model, Long modelBatch,
                                Long modelContext, List<ModelFloor> floors, List<BelowBound> furthestBelowBound) {}

    /** The dense peaks used, with their source. */
    public record DevicePeakRates(String id, String label, Double bf16Tflops, Double fp16Tflops, Double fp8Tflops,
                                  Double int8Tops, Double hbmGbps, String interconnect, Double interconnectGbps,
                                  String source, String sourceUrl, String note) {}

    /** What one decode step must move and compute in a category, its least time and how that was worked out. */
    public record ModelFloor(String category, double bytes, double flops, Double floorMs, String bound,
                             String derivation) {}

    /** A kernel (by name) and the time per step it spends beyond its bound. */
    public record BelowBound(String name, String category, double msPerStep, double boundMsPerStep,
                             double lostMsPerStep, Double pctOfBound, String bound, Double achievedTflops,
                             Double achievedGbps, Double arithmeticIntensity) {}

    /**
     * One collective type in one phase. {@code wait}/{@code transfer} split each instance's time into
     * the time beyond the fastest rank's duration and the fastest rank's duration (null with one rank).
     */
    public record Collective(String phase, String type, double callsPerStep, double meanUs, MessageBytes msgBytes,
                             Double busbwGbps, Double waitMsPerStep, Double transferMsPerStep) {}

    public record MessageBytes(double median) {}

    public record RankSummary(int rank, Map<String, RankPhase> phases) {}

    /**
     * @param computeMsPerStep kernel time minus the time its collectives spent waiting for other ranks
     * @param waitMsPerStep    that waiting time
     */
    public record RankPhase(double steps, RankStepTime stepTime, PerStep kernelMsPerStep, PerStep spanMsPerStep,
                            PerStep computeMsPerStep, PerStep waitMsPerStep, List<CategoryShare> categories) {}

    /** One rank's step time in a phase: its distribution over the rank's steps, and its parts (largest first). */
    public record RankStepTime(PerStep msPerStep, List<PartShare> parts) {}

    /** One rank's per-step distribution. */
    public record PerStep(Double mean, Double median, Double p90) {}

    /**
     * A finding: a stable code and one sentence for people. A finding of a catalogued rule (docs/warnings.md;
     * its code is the rule's id) also carries the rule's severity and one-line summary, the values of its
     * thresholds it was checked with, and its evidence: the rule's query over this capture's analysis with every
     * parameter written as a literal, which any DuckDB client runs on the store as it is.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Warning(String code, String message, Severity severity, String summary,
                          @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Double> thresholds, String evidence) {
        /** A finding of {@code rule}, without its thresholds and evidence (a check's own, before it is kept). */
        public Warning(Rule rule, String message) {
            this(rule.id(), message, rule.severity(), rule.summary(), null, null);
        }

        /** A finding no rule of the catalogue raises (a diff's notes on its two captures). */
        public Warning(String code, String message) {
            this(code, message, null, null, null, null);
        }

        /**
         * A finding of {@code rule} over the analysis {@code kept}, checked with {@code thresholds}: with the values
         * of the rule's thresholds and its evidence query ({@link Rule#evidence}) over that analysis.
         */
        public static Warning of(Rule rule, String message, Thresholds thresholds, KeptAnalysis kept) {
            Map<String, Double> values = new LinkedHashMap<>();
            for (Threshold t : rule.thresholds()) {
                values.put(t.name(), thresholds.get(rule, t.name()));
            }
            return new Warning(rule.id(), message, rule.severity(), rule.summary(), values,
                    rule.evidence() == null ? null : kept.evidence(rule.evidence(), Map.of()));
        }
    }
}
