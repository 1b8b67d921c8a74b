-- Stage 72, kernel contexts (rank-local; docs/schema.md, kernel_contexts): each step's operations summed per phase,
-- launch context (stage 22-launch-contexts: the innermost op, annotation and nn.Module around the launch call) and
-- name by class variant, for the report's tables by op and by annotation or module.
-- Reads:  t_ops_core, t_step_metrics, t_launch_contexts
-- Writes: t_kernel_contexts(file_id, rank, phase, op_name_id, annotation_name_id, module_name_id, name_id, kind,
--             variant, ns, calls): name ids of the file; NULL context where nothing enclosed the launch
-- Per batch: it runs once per batch of the capture's files (SqlStage).
-- Portability: USING joins and GROUP BY ALL are DuckDB's shorthand; the rest is plain SQL.

CREATE OR REPLACE TEMP TABLE t_kernel_contexts AS
SELECT o.file_id, m.rank, m.phase, c.op_name_id, c.annotation_name_id, c.module_name_id, o.name_id, o.kind,
       o.variant, sum(o.dur_ns) AS ns, count(*) AS calls
FROM t_ops_core o
JOIN t_step_metrics m USING (file_id, step)
LEFT JOIN (SELECT * FROM t_launch_contexts WHERE in_batch(file_id)) c
  ON c.file_id = o.file_id AND c.correlation = o.correlation
WHERE in_batch(o.file_id)
GROUP BY ALL;
