package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.PerStep;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * Each step's time spent waiting for other ranks, and its compute time, as the store keeps them
 * ({@code step_metrics.wait_ns, compute_ns}, made by {@code cross-rank.sql}'s {@code step_waits}):
 * {@code wait_ns} sums the step's collective waits, {@code compute_ns} is the kernel time without them.
 */
final class CollectiveWaits {
    private CollectiveWaits() {}

    /**
     * Per phase and rank: {compute, wait} per step (mean, median, p90 over the rank's steps), ms, from the
     * analysis as the store keeps it (query {@code collective-waits}: {@code step_metrics.compute_ns, wait_ns}).
     */
    static Map<String, Map<Integer, PerStep[]>> perRank(StoredAnalysis a) throws SQLException {
        Map<String, Map<Integer, PerStep[]>> out = new HashMap<>();
        a.query("collective-waits", Map.of(), rs -> out.computeIfAbsent(rs.getString(1), k -> new HashMap<>())
                .put(rs.getInt(2), new PerStep[] {
                        new PerStep(rs.getDouble(3) / 1e6, rs.getDouble(4) / 1e6, rs.getDouble(5) / 1e6),
                        new PerStep(rs.getDouble(6) / 1e6, rs.getDouble(7) / 1e6, rs.getDouble(8) / 1e6)}));
        return out;
    }
}
