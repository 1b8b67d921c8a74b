package dev.steptrace.analysis;

import static dev.steptrace.analysis.StepDetector.exec;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Per-step measurements into temp tables, from {@code t_steps}, {@code t_ops} and {@code t_classes}:
 * <ul>
 *   <li>{@code t_step_metrics}: per file and step, kernel time (sum of GPU operation durations), calls,
 *       span (first start to last end), busy (union of intervals over streams), idle = span - busy,
 *       and the host gap since the previous step's last operation;</li>
 *   <li>{@code t_step_categories}: per file, step, category and subcategory, time and calls;</li>
 *   <li>{@code t_kernel_stats}: per file, phase and operation name, time and calls.</li>
 * </ul>
 * Each step's {@code phase_index} counts the step's position among the file's steps of that phase,
 * which is how steps are matched across ranks.
 */
final class StepMetrics {
    private StepMetrics() {}

    static void build(Connection c) throws SQLException {
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_ops_c AS
                SELECT o.*, k.name, k.category, k.subcategory, k.rule_id
                FROM t_ops o JOIN t_classes k USING (file_id, name_id, kind)
                """);
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_step_metrics AS
                WITH ordered AS (
                    SELECT file_id, step, ts_ns, end_ns,
                           max(end_ns) OVER (PARTITION BY file_id, step ORDER BY ts_ns, end_ns
                                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                    FROM t_ops WHERE step IS NOT NULL
                ), segmented AS (
                    SELECT *, sum(CASE WHEN prev_end IS NULL OR ts_ns > prev_end THEN 1 ELSE 0 END)
                                  OVER (PARTITION BY file_id, step ORDER BY ts_ns, end_ns ROWS UNBOUNDED PRECEDING) AS seg
                    FROM ordered
                ), busy AS (
                    SELECT file_id, step, sum(seg_end - seg_start)::BIGINT AS busy_ns
                    FROM (SELECT file_id, step, seg, min(ts_ns) AS seg_start, max(end_ns) AS seg_end
                          FROM segmented GROUP BY file_id, step, seg)
                    GROUP BY file_id, step
                ), kernel AS (
                    SELECT file_id, step, sum(dur_ns)::BIGINT AS kernel_ns, count(*)::BIGINT AS calls
                    FROM t_ops WHERE step IS NOT NULL GROUP BY file_id, step
                )
                SELECT s.file_id, f.rank, s.step, s.phase, s.name,
                       (row_number() OVER (PARTITION BY s.file_id, s.phase ORDER BY s.step) - 1)::INTEGER AS phase_index,
                       w.gpu_start, w.gpu_end,
                       coalesce(k.kernel_ns, 0) AS kernel_ns, coalesce(k.calls, 0) AS calls,
                       w.gpu_end - w.gpu_start AS span_ns, b.busy_ns,
                       (w.gpu_end - w.gpu_start) - b.busy_ns AS idle_ns,
                       greatest(0, w.gpu_start - lag(w.gpu_end) OVER (PARTITION BY s.file_id ORDER BY s.step)) AS host_gap_ns
                FROM t_steps s
                JOIN t_files f USING (file_id)
                LEFT JOIN t_windows w USING (file_id, step)
                LEFT JOIN busy b USING (file_id, step)
                LEFT JOIN kernel k USING (file_id, step)
                """);
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_step_categories AS
                SELECT o.file_id, m.rank, o.step, m.phase, m.phase_index, o.category, o.subcategory,
                       sum(o.dur_ns)::BIGINT AS ns, count(*)::BIGINT AS calls
                FROM t_ops_c o JOIN t_step_metrics m USING (file_id, step)
                GROUP BY ALL
                """);
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_kernel_stats AS
                SELECT o.file_id, m.rank, m.phase, o.name, o.category, o.subcategory, o.rule_id,
                       sum(o.dur_ns)::BIGINT AS ns, count(*)::BIGINT AS calls
                FROM t_ops_c o JOIN t_step_metrics m USING (file_id, step)
                GROUP BY ALL
                """);
    }
}
