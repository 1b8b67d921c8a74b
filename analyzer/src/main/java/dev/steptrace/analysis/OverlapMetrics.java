package dev.steptrace.analysis;

import static dev.steptrace.analysis.StepDetector.exec;

import dev.steptrace.report.BottleneckReport.Overlap;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * How much of each step's communication runs under other GPU work (docs/reports.md, "Overlap"), into
 * temp table {@code t_step_overlap(file_id, rank, step, phase, phase_index, comm_ns, hidden_ns)} (kept in the
 * store's {@code step_metrics}):
 * {@code comm_ns} is the union of the step's communication kernels (categories allreduce and
 * comm_other), {@code hidden_ns} the part of it during which some other operation (a kernel, memcpy
 * or memset on another stream) ran too; the rest is exposed. By inclusion-exclusion, hidden = |comm|
 * + |other| - |comm or other|, the last being the step's busy time ({@code t_step_metrics.busy_ns}).
 * One stream runs its operations one after another, so a file whose operations are all on one stream
 * hides nothing and its other work is not measured.
 */
final class OverlapMetrics {
    private OverlapMetrics() {}

    static void build(Connection c) throws SQLException {
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_step_overlap AS
                WITH multi AS (
                    SELECT file_id FROM t_ops_core WHERE step IS NOT NULL GROUP BY file_id HAVING count(DISTINCT stream) > 1
                ), ops AS (
                    SELECT o.file_id, o.step, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns,
                           k.category IN ('allreduce', 'comm_other') AS comm
                    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind, variant)
                    WHERE o.step IS NOT NULL
                      AND (k.category IN ('allreduce', 'comm_other') OR o.file_id IN (SELECT file_id FROM multi))
                ), ordered AS (
                    -- One window per file and kind in time order, as for busy time (StepMetrics): steps follow
                    -- one another on the GPU, so the ends of earlier steps do not reach into a later one.
                    SELECT *, max(end_ns) OVER (PARTITION BY file_id, comm ORDER BY ts_ns
                                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                    FROM ops
                ), unions AS (
                    -- union of intervals: each operation adds what extends past everything before it
                    SELECT file_id, step,
                           sum(greatest(0, end_ns - greatest(ts_ns, coalesce(prev_end, ts_ns)))) FILTER (WHERE comm) AS comm_ns,
                           sum(greatest(0, end_ns - greatest(ts_ns, coalesce(prev_end, ts_ns)))) FILTER (WHERE NOT comm) AS other_ns
                    FROM ordered GROUP BY file_id, step
                )
                SELECT m.file_id, m.rank, m.step, m.phase, m.phase_index, coalesce(u.comm_ns, 0)::BIGINT AS comm_ns,
                       CASE WHEN m.file_id IN (SELECT file_id FROM multi) AND u.comm_ns > 0
                            THEN greatest(0, least(u.comm_ns, u.comm_ns + coalesce(u.other_ns, 0) - m.busy_ns))
                            ELSE 0 END::BIGINT AS hidden_ns
                FROM t_step_metrics m LEFT JOIN unions u USING (file_id, step)
                """);
    }

    /**
     * Per phase: communication per step and its hidden part (means over ranks), from the analysis as the
     * store keeps it ({@code step_metrics.comm_ns, hidden_ns}); phases without communication absent.
     */
    static Map<String, Overlap> summarize(StoredAnalysis a) throws SQLException {
        Map<String, Overlap> out = new HashMap<>();
        try (PreparedStatement ps = a.prepare("""
                SELECT phase, avg(comm), avg(hidden)
                FROM (SELECT phase, rank, avg(comm_ns) / 1e6 AS comm, avg(hidden_ns) / 1e6 AS hidden
                      FROM step_metrics WHERE capture_id = $1 AND analysis_key = $2 AND rank IS NOT NULL
                      GROUP BY phase, rank)
                GROUP BY phase HAVING avg(comm) > 0
                """); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                double comm = rs.getDouble(2);
                double hidden = rs.getDouble(3);
                out.put(rs.getString(1), new Overlap(comm, hidden, comm - hidden, 100 * hidden / comm));
            }
        }
        return out;
    }
}
