package dev.steptrace.analysis;

import dev.steptrace.common.StepSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * Gives every GPU operation of the capture its step, into the working table {@code t_ops_core(file_id, kind,
 * name_id, stream, ts_ns, dur_ns, correlation, external_id, step, by_launch, variant, launch_ns, graph)}: ids
 * and numbers only (no strings: half the time to write, less to scan; {@code variant} 0: the class of the
 * operation's name, {@link ContextClasses} sets others; {@code launch_ns} and {@code graph}: its launch
 * call's start and whether it replays a graph, found once per correlation by stage {@code 19-launch-calls});
 * the metrics join the classes onto its aggregates.
 *
 * <p>A kernel belongs to the step whose CPU range contains the runtime call that launched it
 * (same correlation id; under CUDA graphs every kernel of a replay shares the {@code cudaGraphLaunch}'s
 * id). Operations whose launch is not in the trace fall back to the step's GPU time window (from the
 * first to the last operation attributed through launches). {@code by_launch} says which rule applied.
 */
final class StepAttribution {
    private StepAttribution() {}

    static void attribute(Connection c, StepSource source) throws SQLException {
        boolean byLaunch = source != StepSource.GAP;
        SqlStage.load("19-launch-calls").run(c, Map.of("graph_launches", StepSource.GRAPH_LAUNCHES,
                "steps_by_launch", byLaunch));
        SqlStage.run(c, byLaunch ? "20-step-attribution-by-launch" : "20-step-attribution-by-time");
        SqlStage.run(c, "21-step-windows");
    }
}
