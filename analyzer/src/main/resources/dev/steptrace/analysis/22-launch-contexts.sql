-- Stage 22, launch contexts (rank-local; docs/taxonomy.md, "Classes from the launching op"): for each correlation's
-- launch call, what encloses it on the launching thread at its start: the innermost CPU op, the innermost user
-- annotation (record_function; the step ranges are no context) and the innermost nn.Module range
-- (python_function 'nn.Module: X', kept with --keep-python-functions). A graph replay's kernels share the
-- cudaGraphLaunch's correlation, so they get what encloses the graph launch.
-- Reads:  launches, cpu_ops, names (store); t_files, t_steps
-- Writes: t_launch_contexts(file_id, correlation, op_name_id, annotation_name_id, module_name_id): one row per
--             correlation with a launch call, NULL where nothing of that layer encloses it (made empty here, filled
--             by LaunchContexts);
--         helpers h_ctx_launches(file_id, correlation, pid, tid, at_ns): each correlation's first launch call;
--         h_ctx_ranges(file_id, pid, tid, layer, name_id, start_ns, end_ns, external_id): the launching threads'
--             ranges, layer op, annotation or module
-- Per batch: its statements run once per batch of the capture's files (SqlStage): the ranges and launches of
-- every file at once ran out of DuckDB's memory at 16 x 2 GB.
-- Portability: arg_min, starts_with, SEMI JOIN and USING joins are DuckDB's.

CREATE OR REPLACE TEMP TABLE h_ctx_launches AS
SELECT l.file_id, l.correlation, coalesce(arg_min(l.pid, l.ts_ns), -1) AS pid, coalesce(arg_min(l.tid, l.ts_ns), -1) AS tid,
       min(l.ts_ns) AS at_ns
FROM launches l JOIN t_files USING (file_id)
WHERE l.correlation IS NOT NULL AND in_batch(l.file_id)
GROUP BY l.file_id, l.correlation;

-- Names are tested once per file (a few thousand), not once per range.
CREATE OR REPLACE TEMP TABLE h_ctx_ranges AS
WITH step_names AS (
    SELECT DISTINCT n.file_id, n.name_id
    FROM names n JOIN (SELECT DISTINCT file_id, name FROM t_steps) s ON s.file_id = n.file_id AND s.name = n.name
    WHERE in_batch(n.file_id)
), module_names AS (
    SELECT n.file_id, n.name_id FROM names n JOIN t_files USING (file_id)
    WHERE starts_with(n.name, 'nn.Module: ') AND in_batch(n.file_id)
), threads AS (
    SELECT DISTINCT file_id, pid, tid FROM h_ctx_launches WHERE in_batch(file_id)
)
SELECT c.file_id, coalesce(c.pid, -1) AS pid, coalesce(c.tid, -1) AS tid,
       CASE c.kind WHEN 'cpu_op' THEN 'op' WHEN 'user_annotation' THEN 'annotation' ELSE 'module' END AS layer,
       c.name_id, c.ts_ns AS start_ns, c.ts_ns + c.dur_ns AS end_ns, c.external_id
FROM cpu_ops c
SEMI JOIN threads t ON t.file_id = c.file_id AND t.pid = coalesce(c.pid, -1) AND t.tid = coalesce(c.tid, -1)
WHERE in_batch(c.file_id)
  AND (c.kind = 'cpu_op'
       OR (c.kind = 'user_annotation' AND NOT EXISTS (SELECT 1 FROM step_names s WHERE s.file_id = c.file_id AND s.name_id = c.name_id))
       OR (c.kind = 'python_function' AND EXISTS (SELECT 1 FROM module_names m WHERE m.file_id = c.file_id AND m.name_id = c.name_id)));

-- LaunchContexts fills it, a batch of files at a time: one pass over each thread's ranges and launches in time order.
CREATE OR REPLACE TEMP TABLE t_launch_contexts (file_id INTEGER, correlation BIGINT, op_name_id INTEGER,
                                                annotation_name_id INTEGER, module_name_id INTEGER);
