-- Stage 50, overlap (rank-local): how much of each step's communication runs under other GPU work
-- (docs/reports.md, "Overlap"). comm_ns is the union of the step's communication kernels (categories
-- allreduce and comm_other), hidden_ns the part of it during which some other operation (a kernel,
-- memcpy or memset on another stream) ran too. By inclusion-exclusion, hidden = |comm| + |other| -
-- |comm or other|, the last being the step's busy time. One stream runs its operations one after
-- another, so a file whose operations are all on one stream hides nothing and its other work is not
-- measured.
-- Reads:  t_ops_core, t_classes, t_step_metrics, t_files
-- Writes: t_step_overlap(file_id, rank, step, phase, phase_index, comm_ns, hidden_ns)
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: sum(...) FILTER (WHERE ...) is DuckDB's and PostgreSQL's (elsewhere sum(CASE ...)); the
-- collective_category macro (macros.sql) is DuckDB's.

CREATE OR REPLACE TEMP TABLE t_step_overlap AS
WITH multi AS (
    SELECT file_id FROM t_ops_core WHERE step IS NOT NULL AND in_batch(file_id) GROUP BY file_id HAVING count(DISTINCT stream) > 1
), ops AS (
    SELECT o.file_id, o.step, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns,
           collective_category(k.category) AS comm
    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind, variant)
    WHERE o.step IS NOT NULL AND in_batch(o.file_id)
      AND (collective_category(k.category) OR o.file_id IN (SELECT file_id FROM multi))
), ordered AS (
    -- One window per file and kind in time order, as for busy time (stage 30): steps follow
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
WHERE in_batch(m.file_id);
