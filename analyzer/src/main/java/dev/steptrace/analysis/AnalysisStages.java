package dev.steptrace.analysis;

import dev.steptrace.common.StepSource;
import dev.steptrace.ingest.Importer;
import dev.steptrace.ingest.Importers;
import dev.steptrace.roofline.WorkModels;
import dev.steptrace.whatif.CriticalPaths;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The analysis of one capture, in the order it runs (docs/architecture.md, "Analysis stages"): the one list of
 * it. Each step is a stage file run with its parameters, or a Java step: one that writes what only Java knows into
 * a working table, or that chooses among the stage files it names by how many rows a working table has.
 * {@link CaptureAnalysis} runs the steps in this order; stage {@link #KEEP} copies the result into the store when
 * the analysis is kept. {@code AnalysisStagesTest} checks that every stage file is named here once.
 */
final class AnalysisStages {
    /** The stage that copies the working tables into the store's analysis tables ({@link CaptureAnalysis#persist}). */
    static final String KEEP = "90-keep-analysis";
    /** The stage that records the kept analysis's options, files and build, last ({@link CaptureAnalysis#persist}). */
    static final String KEEP_ROW = "91-keep-analysis-row";

    /** What the steps read: the analysis connection, the capture and the options; the step source once chosen. */
    static final class Run {
        final Connection connection;
        final int captureId;
        final AnalysisKey key;
        StepSource source;

        Run(Connection connection, int captureId, AnalysisKey key) {
            this.connection = connection;
            this.captureId = captureId;
            this.key = key;
        }
    }

    /** A step: the stage files it runs (a Java step: those it may run), and how. */
    record Step(List<String> stages, Action action) {}

    @FunctionalInterface
    interface Action {
        void run(Run run) throws SQLException;
    }

    static final List<Step> ORDER = List.of(
            stage("00-capture-files", r -> Map.of("capture_id", r.captureId, "batch_ops", CaptureAnalysis.BATCH_OPS)),
            stage("01-classes", r -> Map.of("taxonomy_digest", r.key.taxonomy().digest())),
            stage("02-devices"),
            // The first step source the capture has (StepDetector): annotations matched by Java's regex semantics,
            // else NVTX ranges, else graph launches, else GPU idle gaps.
            java(r -> r.source = StepDetector.detect(r.connection, r.key.stepRegex()), "10-step-annotations",
                    "11-steps-from-annotations", "12-steps-from-nvtx", "13-steps-from-graph-launches",
                    "14-steps-from-gaps", "15-step-phases", "16-steps-past-partial-ends"),
            // A GPU operation belongs to the step whose CPU range holds its launch call (under CUDA graphs the
            // graph launch), else to the step's GPU window; gap steps have no launch calls to go by.
            stage("19-launch-calls", r -> Map.of("graph_launches", StepSource.GRAPH_LAUNCHES,
                    "steps_by_launch", r.source != StepSource.GAP)),
            java(r -> SqlStage.run(r.connection, r.source == StepSource.GAP ? "20-step-attribution-by-time"
                    : "20-step-attribution-by-launch"), "20-step-attribution-by-launch", "20-step-attribution-by-time"),
            stage("21-step-windows"),
            // Classes from context (ContextClasses): the taxonomy's context rules and collective-ops.yaml.
            java(r -> ContextClasses.refine(r.connection, r.key.taxonomy()), "22-context-classes", "22-launch-contexts",
                    "22-launch-rules", "23-moe-blocks",
                    "24-generic-collectives", "25-class-variants"),
            stage("30-busy-time"),
            stage("31-step-metrics"),
            // Collective instances rank by rank, then matched across ranks by cross-rank.sql, the one definition
            // the Spark application runs too, over stage 42's views; stage 43 takes its results back.
            stage("40-collective-instances"),
            stage("41-collective-causes"),
            stage("42-cross-rank-inputs"),
            java(r -> ViewScript.CROSS_RANK.create(r.connection), "cross-rank"),
            stage("43-cross-rank-results"),
            stage("50-overlap"),
            stage("60-host-bound"),
            stage("61-replay-latencies", r -> Map.of("rounding_ns", CriticalPaths.STREAM_ROUNDING_NS)),
            // Each step's window cut into the parts of its time (docs/reports.md, "Step time"; StepTimeParts), then what
            // its idle time ran beside; the store's view step_time_parts splits the collectives' waits off.
            java(r -> {
                SqlStage.load("65-step-time").run(r.connection, Map.of("gpu_anchored", r.source.gpuAnchored(),
                        "host_syncs", HostSyncCalls.NAMES));
                StepTimeParts.cut(r.connection);
                SqlStage.run(r.connection, "66-host-syncs");
            }, "65-step-time", "66-host-syncs"),
            stage("70-launch-ops", r -> Map.of("work_ops", List.copyOf(new TreeSet<>(WorkModels.names())))),
            java(r -> ShapeWork.fill(r.connection)),
            stage("71-kernel-work"),
            stage("72-kernel-contexts"),
            stage("73-compile-events"),
            stage("80-file-checks", r -> Map.of("graph_launches", StepSource.GRAPH_LAUNCHES,
                    "whole_graph_formats", Importers.formatsThatCan(Importer.Capability.WHOLE_GRAPH_ROWS))));

    private AnalysisStages() {}

    private static Step stage(String name) {
        return stage(name, r -> Map.of());
    }

    private static Step stage(String name, Function<Run, Map<String, ?>> parameters) {
        return new Step(List.of(name), r -> SqlStage.load(name).run(r.connection, parameters.apply(r)));
    }

    private static Step java(Action action, String... stages) {
        return new Step(List.of(stages), action);
    }

    /** Runs every step on {@code run}'s connection, in order. */
    static void runAll(Run run) throws SQLException {
        for (Step step : ORDER) {
            step.action().run(run);
        }
    }
}
