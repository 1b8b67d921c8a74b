package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.PerStep;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * Each step's time spent waiting for other ranks, and its compute time, into temp table
 * {@code t_step_waits(file_id, rank, step, phase, phase_index, wait_ns, compute_ns)} (kept in the store's
 * {@code step_metrics}): {@code wait_ns}
 * sums the step's collective waits ({@code t_collectives.wait_ns}, 0 where none was matched) and
 * {@code compute_ns} is the kernel time without them. Kernel time counts a rank's spinning inside
 * collectives as work, so the rank everyone waits for has the least of it; compute time ranks the
 * ranks by the work they did. The SQL is stage {@code 41-collective-waits}.
 */
final class CollectiveWaits {
    private CollectiveWaits() {}

    static void build(Connection c) throws SQLException {
        SqlStage.run(c, "41-collective-waits");
    }

    /**
     * Per phase and rank: {compute, wait} per step (mean, median, p90 over the rank's steps), ms, from the
     * analysis as the store keeps it ({@code step_metrics.compute_ns, wait_ns}).
     */
    static Map<String, Map<Integer, PerStep[]>> perRank(StoredAnalysis a) throws SQLException {
        Map<String, Map<Integer, PerStep[]>> out = new HashMap<>();
        try (PreparedStatement ps = a.prepare("""
                SELECT phase, rank,
                       avg(compute_ns), quantile_cont(compute_ns, 0.5), quantile_cont(compute_ns, 0.9),
                       avg(wait_ns), quantile_cont(wait_ns, 0.5), quantile_cont(wait_ns, 0.9)
                FROM step_metrics WHERE capture_id = $1 AND analysis_key = $2 AND rank IS NOT NULL GROUP BY phase, rank
                """); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString(1), k -> new HashMap<>()).put(rs.getInt(2), new PerStep[] {
                        new PerStep(rs.getDouble(3) / 1e6, rs.getDouble(4) / 1e6, rs.getDouble(5) / 1e6),
                        new PerStep(rs.getDouble(6) / 1e6, rs.getDouble(7) / 1e6, rs.getDouble(8) / 1e6)});
            }
        }
        return out;
    }
}
