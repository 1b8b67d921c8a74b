-- Stage 31, step metrics (rank-local).
-- Reads:  t_ops_core, t_classes, t_steps, t_files, t_windows, t_step_busy
-- Writes: t_step_names(file_id, step, name_id, kind, variant, category, subcategory, rule_id, ns, calls):
--             per step, operation name and class variant, time and calls (the one pass over every
--             operation the sums below are made from);
--         t_step_metrics(file_id, rank, step, phase, name, phase_index, gpu_start, gpu_end, kernel_ns,
--             calls, span_ns, busy_ns, idle_ns, host_gap_ns): kernel time (sum of durations), span (first
--             start to last end), busy (stage 30), idle = span - busy, the host gap since the previous
--             step's last operation; phase_index is the step's position among the file's steps of its
--             phase, which is how steps are matched across ranks;
--         t_step_categories(file_id, rank, step, phase, phase_index, category, subcategory, ns, calls).
-- Portability: USING joins, GROUP BY ALL and :: casts are DuckDB's shorthand; the rest is plain SQL.

-- Classes are joined after aggregating: grouping by their strings costs more than the sums.
CREATE OR REPLACE TEMP TABLE t_step_names AS
SELECT o.file_id, o.step, o.name_id, o.kind, o.variant, k.category, k.subcategory, k.rule_id, o.ns, o.calls
FROM (SELECT file_id, step, name_id, kind, variant, sum(dur_ns)::BIGINT AS ns, count(*)::BIGINT AS calls
      FROM t_ops_core WHERE step IS NOT NULL
      GROUP BY file_id, step, name_id, kind, variant) o
JOIN t_classes k USING (file_id, name_id, kind, variant);

CREATE OR REPLACE TEMP TABLE t_step_metrics AS
WITH kernel AS (
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
LEFT JOIN t_step_busy b USING (file_id, step)
LEFT JOIN kernel k USING (file_id, step);

CREATE OR REPLACE TEMP TABLE t_step_categories AS
SELECT o.file_id, m.rank, o.step, m.phase, m.phase_index, o.category, o.subcategory,
       sum(o.ns)::BIGINT AS ns, sum(o.calls)::BIGINT AS calls
FROM t_step_names o JOIN t_step_metrics m USING (file_id, step)
GROUP BY ALL;
