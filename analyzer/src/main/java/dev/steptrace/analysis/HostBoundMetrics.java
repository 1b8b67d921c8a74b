package dev.steptrace.analysis;

import dev.steptrace.quality.LaunchBoundRule;
import dev.steptrace.report.BottleneckReport.HostBound;
import dev.steptrace.report.BottleneckReport.LaunchDelay;
import dev.steptrace.report.BottleneckReport.PerStep;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the GPU waits for the CPU (docs/reports.md, "Host-bound steps"). Temp tables:
 * <ul>
 *   <li>{@code t_step_host(file_id, rank, step, phase, phase_index, idle_ns, launch_wait_ns)} (kept in the
 *       store's {@code step_metrics}): the GPU's idle time inside the step (span minus busy: every moment
 *       no operation runs, on any stream) and the part of it spent waiting for the CPU to launch: the gaps
 *       after which the next operation's launch call began only when the GPU was already idle (NULL in a
 *       file without launch calls: unknown);</li>
 *   <li>{@code t_launch_delays(file_id, rank, phase, category, ops, mean_ns, median_ns, p90_ns)} (kept as
 *       {@code launch_delays}): per
 *       category, the delay from an eager launch call's start to its operation's start (operations of
 *       CUDA graph replays are left out: the replay's one launch says nothing about each kernel);</li>
 *   <li>{@code t_graph_replays(file_id, rank, step, phase, correlation, start_ns, end_ns, gap_ns)} (kept as
 *       {@code graph_replays}): each
 *       CUDA graph replay with kernels in a step, its GPU window, and the GPU time since the previous
 *       replay of the file ended (null for the first).</li>
 * </ul>
 * A phase is launch-bound when the GPU waits for launches for a large share of the step's span (means over ranks):
 * the verdict of rule {@link LaunchBoundRule}, under the analysis's thresholds. The SQL is stage
 * {@code 60-host-bound}.
 */
final class HostBoundMetrics {
    private HostBoundMetrics() {}

    /**
     * Per phase, means over ranks of each rank's per-step means; every phase with steps. Reads the analysis
     * as the store keeps it (queries {@code host-bound}, {@code launch-delays}, {@code graph-replays}).
     */
    static Map<String, HostBound> summarize(StoredAnalysis a) throws SQLException {
        Map<String, HostBound> out = new HashMap<>();
        Map<String, List<LaunchDelay>> delays = launchDelays(a);
        Map<String, double[]> replays = graphReplays(a);
        a.query("host-bound", Map.of(), rs -> {
            String phase = rs.getString(1);
            if (rs.getObject(4) == null) {
                return; // no step with a span (a slice that cut every step): idle time is unknown, not 0
            }
            double idle = rs.getDouble(2);
            double w = rs.getDouble(3);
            Double wait = rs.wasNull() ? null : w;
            double span = rs.getDouble(4);
            Double pct = LaunchBoundRule.launchWaitPct(wait, span);
            double[] g = replays.getOrDefault(phase, new double[] {0, Double.NaN, Double.NaN, Double.NaN});
            out.put(phase, new HostBound(idle, wait, wait == null ? null : idle - wait, pct,
                    pct == null ? null : LaunchBoundRule.launchBound(pct, a.thresholds()), delays.getOrDefault(phase, List.of()), g[0],
                    Double.isNaN(g[1]) ? null : new PerStep(g[1], g[2], g[3])));
        });
        return out;
    }

    /** Per phase and category: launches per step, and the launch delay's mean, median and p90 (µs), means over ranks. */
    private static Map<String, List<LaunchDelay>> launchDelays(StoredAnalysis a) throws SQLException {
        Map<String, List<LaunchDelay>> out = new HashMap<>();
        a.query("launch-delays", Map.of(), rs -> out.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                .add(new LaunchDelay(rs.getString(2), rs.getDouble(3), rs.getDouble(4), rs.getDouble(5), rs.getDouble(6))));
        return out;
    }

    /** Per phase: {replays per step, gap between replays mean, median, p90 (µs)}, means over ranks. */
    private static Map<String, double[]> graphReplays(StoredAnalysis a) throws SQLException {
        Map<String, double[]> out = new HashMap<>();
        a.query("graph-replays", Map.of(), rs -> {
            double mean = rs.getDouble(3);
            boolean gaps = !rs.wasNull();
            out.put(rs.getString(1), new double[] {rs.getDouble(2), gaps ? mean : Double.NaN,
                    gaps ? rs.getDouble(4) : Double.NaN, gaps ? rs.getDouble(5) : Double.NaN});
        });
        return out;
    }
}
