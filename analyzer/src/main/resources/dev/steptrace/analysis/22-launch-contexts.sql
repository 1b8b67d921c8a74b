-- Stage 22, launch contexts (rank-local; docs/taxonomy.md, "Classes from the launching op"): for each correlation's
-- launch call, what encloses it on the launching thread at its start: the innermost CPU op, the innermost user
-- annotation (record_function; the step ranges are no context) and the innermost nn.Module range
-- (python_function 'nn.Module: X', kept with --keep-python-functions). A graph replay's kernels share the
-- cudaGraphLaunch's correlation, so they get what encloses the graph launch.
-- Reads:  launches, cpu_ops, names (store); t_files, t_steps
-- Writes: t_launch_contexts(file_id, correlation, op_name_id, annotation_name_id, module_name_id): one row per
--             correlation with a launch call, NULL where nothing of that layer encloses it;
--         helpers h_ctx_launches(file_id, correlation, pid, tid, at_ns): each correlation's first launch call;
--         h_ctx_ranges(file_id, pid, tid, layer, name_id, start_ns, end_ns, external_id): the launching threads'
--             ranges, layer op, annotation or module
-- Per batch: its statements run once per batch of the capture's files (SqlStage): the ranges and launches of
-- every file at once ran out of DuckDB's memory at 16 x 2 GB.
-- Portability: ASOF JOIN, arg_min, starts_with, FILTER, QUALIFY, USING joins and :: casts are DuckDB's.

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

-- Ranges of one thread and layer nest, so the innermost range open at time t is the latest one to start before
-- t at the depth open at t (a later start at that depth would have closed it). The depth at t is the running
-- count of starts less ends up to t, ends before starts at one time and outer ranges before inner ones (the longer
-- first; of two with the same start and end, which a trace of microseconds has, the one with the lower external
-- id, as an op gets its id when it starts, before the ops it calls): one sort and two ASOF joins, where joining
-- each launch onto every range of its thread that holds it compares each launch with every range.
CREATE OR REPLACE TEMP TABLE t_launch_contexts AS
WITH ev AS (
    SELECT file_id, pid, tid, layer, start_ns AS at_ns, 1 AS delta, end_ns - start_ns AS len, external_id, name_id, end_ns
    FROM h_ctx_ranges WHERE in_batch(file_id)
    UNION ALL
    SELECT file_id, pid, tid, layer, end_ns, -1, 0, NULL, NULL, NULL FROM h_ctx_ranges WHERE in_batch(file_id)
), counted AS (
    SELECT *, sum(delta) OVER w AS depth, lead(at_ns) OVER w AS next_at
    FROM ev WINDOW w AS (PARTITION BY file_id, pid, tid, layer ORDER BY at_ns, delta, len DESC, external_id, name_id
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
), levels AS (
    -- the depth after the last event at each time, found in the window's own order (no grouping of the events)
    SELECT file_id, pid, tid, layer, at_ns, depth FROM counted WHERE next_at IS DISTINCT FROM at_ns
), starts AS (
    SELECT file_id, pid, tid, layer, depth, at_ns, end_ns, name_id FROM counted WHERE delta = 1
), asked AS (
    -- each launch asked of the layers its thread has ranges of (most threads have no annotations or modules)
    SELECT l.*, y.layer FROM h_ctx_launches l
    JOIN (SELECT DISTINCT file_id, pid, tid, layer FROM h_ctx_ranges WHERE in_batch(file_id)) y USING (file_id, pid, tid)
    WHERE in_batch(l.file_id)
), depths AS (
    SELECT a.file_id, a.correlation, a.pid, a.tid, a.layer, a.at_ns, v.depth
    FROM asked a ASOF JOIN levels v
      ON v.file_id = a.file_id AND v.pid = a.pid AND v.tid = a.tid AND v.layer = a.layer AND v.at_ns <= a.at_ns
    WHERE v.depth > 0
), inner_ranges AS (
    SELECT d.file_id, d.correlation, d.layer, s.name_id
    FROM depths d ASOF JOIN starts s
      ON s.file_id = d.file_id AND s.pid = d.pid AND s.tid = d.tid AND s.layer = d.layer AND s.depth = d.depth
     AND s.at_ns <= d.at_ns
    WHERE s.end_ns > d.at_ns
)
SELECT l.file_id, l.correlation,
       any_value(i.name_id) FILTER (WHERE i.layer = 'op') AS op_name_id,
       any_value(i.name_id) FILTER (WHERE i.layer = 'annotation') AS annotation_name_id,
       any_value(i.name_id) FILTER (WHERE i.layer = 'module') AS module_name_id
FROM h_ctx_launches l LEFT JOIN inner_ranges i USING (file_id, correlation)
WHERE in_batch(l.file_id)
GROUP BY l.file_id, l.correlation;
