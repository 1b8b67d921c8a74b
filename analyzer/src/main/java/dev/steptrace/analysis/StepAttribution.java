package dev.steptrace.analysis;

import dev.steptrace.common.StepSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Gives every GPU operation of the capture its step, into temp table {@code t_ops_core(file_id, kind,
 * name_id, stream, ts_ns, dur_ns, correlation, external_id, step, by_launch, variant)}: ids and numbers only
 * (no strings: half the time to write, less to scan; {@code variant} 0: the class of the operation's
 * name, {@link ContextClasses} sets others); the metrics join the classes onto its aggregates.
 *
 * <p>A kernel belongs to the step whose CPU range contains the runtime call that launched it
 * (same correlation id; under CUDA graphs every kernel of a replay shares the {@code cudaGraphLaunch}'s
 * id). Operations whose launch is not in the trace fall back to the step's GPU time window (from the
 * first to the last operation attributed through launches). {@code by_launch} says which rule applied.
 */
final class StepAttribution {
    private StepAttribution() {}

    static void attribute(Connection c, StepSource source) throws SQLException {
        SqlStage.run(c, source == StepSource.GAP ? "20-step-attribution-by-time" : "20-step-attribution-by-launch");
        SqlStage.run(c, "21-step-windows");
    }
}
