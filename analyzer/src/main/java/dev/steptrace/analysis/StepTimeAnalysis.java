package dev.steptrace.analysis;

import dev.steptrace.common.StepSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * Where each step's wall time goes (docs/reports.md, "Step time"): stage {@code 65-step-time} cuts each step's
 * window on its rank into parts that sum to it, GPU work by category, exposed communication and GPU idle time
 * by cause, and stage {@code 66-step-time-waits} splits the communication into waiting for the slowest rank
 * and transfer, and finds what the CPU did meanwhile: the host syncs of
 * each step and the op that issued them, and the CPU ops that ran while the GPU was idle. Working tables
 * {@code t_step_times}, {@code t_step_time_parts}, {@code t_host_syncs}, {@code t_idle_cpu_ops}; the host syncs are
 * {@link HostSyncCalls}.
 */
final class StepTimeAnalysis {
    private StepTimeAnalysis() {}

    static void build(Connection c, StepSource source) throws SQLException {
        SqlStage.load("65-step-time").run(c, Map.of("gpu_anchored", gpuAnchored(source),
                "host_syncs", HostSyncCalls.NAMES));
        SqlStage.run(c, "66-step-time-waits");
    }

    /**
     * Whether a step's window starts at its first GPU operation rather than its CPU start: for graph replays and
     * bursts of GPU work, whose CPU side is a launch call or nothing.
     */
    static boolean gpuAnchored(StepSource source) {
        return source == StepSource.GRAPH_LAUNCH || source == StepSource.GAP;
    }

}
