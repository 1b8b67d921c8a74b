package dev.steptrace.analysis;

import static dev.steptrace.analysis.StepDetector.exec;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Per-step measurements into temp tables, from {@code t_steps}, {@code t_ops_core} and {@code t_classes}:
 * <ul>
 *   <li>{@code t_step_names}: per file, step, operation name and class variant, time and calls (the one pass over
 *       every operation the sums below are made from);</li>
 *   <li>{@code t_step_metrics}: per file and step, kernel time (sum of GPU operation durations), calls,
 *       span (first start to last end), busy (union of intervals over streams), idle = span - busy,
 *       and the host gap since the previous step's last operation;</li>
 *   <li>{@code t_step_categories}: per file, step, category and subcategory, time and calls.</li>
 * </ul>
 * Each step's {@code phase_index} counts the step's position among the file's steps of that phase,
 * which is how steps are matched across ranks.
 */
final class StepMetrics {
    private StepMetrics() {}

    static void build(Connection c) throws SQLException {
        // One pass over the operations for every sum the tables below need: the rest reads this.
        // Classes are joined after aggregating: grouping by their strings costs more than the sums.
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_step_names AS
                SELECT o.file_id, o.step, o.name_id, o.kind, o.variant, k.category, k.subcategory, k.rule_id, o.ns, o.calls
                FROM (SELECT file_id, step, name_id, kind, variant, sum(dur_ns)::BIGINT AS ns, count(*)::BIGINT AS calls
                      FROM t_ops_core WHERE step IS NOT NULL
                      GROUP BY file_id, step, name_id, kind, variant) o
                JOIN t_classes k USING (file_id, name_id, kind, variant)
                """);
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_step_metrics AS
                WITH shift AS (
                    -- Each step moved later by the overlaps of the steps before it: then no earlier step's
                    -- operation ends after a later step's first one starts.
                    SELECT file_id, step,
                           sum(greatest(0, earlier_end - gpu_start)) OVER (PARTITION BY file_id ORDER BY step
                                                                         ROWS UNBOUNDED PRECEDING)::BIGINT AS shift_ns
                    FROM (SELECT file_id, step, gpu_start,
                                 max(gpu_end) OVER (PARTITION BY file_id ORDER BY step
                                                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
                          FROM t_windows)
                ), shifted AS (
                    SELECT o.file_id, o.step, o.ts_ns + s.shift_ns AS ts_ns, o.ts_ns + o.dur_ns + s.shift_ns AS end_ns
                    FROM t_ops_core o JOIN shift s USING (file_id, step)
                ), ordered AS (
                    -- The latest end before each operation of its step. One window per file, not per step
                    -- (many small partitions cost twice as much): shifted, and durations never negative,
                    -- the steps follow one another in time, and the ends of earlier steps are never after
                    -- the operation's start, so they change nothing below.
                    SELECT *, max(end_ns) OVER (PARTITION BY file_id ORDER BY ts_ns
                                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                    FROM shifted
                ), busy AS (
                    -- union of intervals: each operation adds what extends past everything before it
                    SELECT file_id, step,
                           sum(greatest(0, end_ns - greatest(ts_ns, coalesce(prev_end, ts_ns))))::BIGINT AS busy_ns
                    FROM ordered GROUP BY file_id, step
                ), kernel AS (
                    SELECT file_id, step, sum(ns)::BIGINT AS kernel_ns, sum(calls)::BIGINT AS calls
                    FROM t_step_names GROUP BY file_id, step
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
                       sum(o.ns)::BIGINT AS ns, sum(o.calls)::BIGINT AS calls
                FROM t_step_names o JOIN t_step_metrics m USING (file_id, step)
                GROUP BY ALL
                """);
    }
}
