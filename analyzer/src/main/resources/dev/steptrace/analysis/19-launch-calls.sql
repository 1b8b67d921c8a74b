-- Stage 19, launch calls (rank-local): each correlation's launch call, found once for what reads it:
-- stage 20 (the step of the operations it launched) and, through t_ops_core, stage 60 (launch waits and
-- delays). One pass over the launches, where a pass for the steps and another for the launch times, and
-- a join of every operation onto their result in each stage, were four (docs/performance.md, "The
-- analysis after ingest").
-- Parameters (DuckDB variables): graph_launches, the runtime calls that replay a CUDA/HIP graph;
--             steps_by_launch, whether steps are attributed by launch (false for gap steps, whose ranges
--             are GPU times)
-- Reads:  launches, names (store); t_files, t_steps
-- Writes: h_launch_calls(file_id, correlation, launch_ns, graph, step): per correlation of the capture's
--             files, its first launch call's start, whether a launch of it replays a graph, and the first
--             step (lowest number) whose CPU range [cpu_start, cpu_end) contains one of its launches
--             (NULL in none, and always without steps_by_launch; a correlation launched twice belongs to
--             the first step of either launch);
--         helper h_step_segments (the steps' segments by slice of the file's time)
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: getvariable, list_contains, unnest and the slice macros (macros.sql) are DuckDB's.

-- The steps' CPU ranges cut at every start and end into segments that do not overlap, each with the
-- first step that contains it (steps may overlap), and the segments listed by the equal slices of the
-- file's time they touch (about twice as many slices as segments): a launch's step is then its segment's,
-- found by an equi-join on (file, slice), and only the few segments of its slice are compared. Joining
-- the launches onto the steps' ranges compares every launch with every step of its file; an ASOF JOIN
-- sorts all the launches (docs/performance.md, "The analysis after ingest").
CREATE OR REPLACE TEMP TABLE h_step_segments AS
WITH steps AS (
    SELECT file_id, step, cpu_start, cpu_end FROM t_steps WHERE getvariable('steps_by_launch')
), bounds AS (
    SELECT file_id, cpu_start AS seg_start FROM steps
    UNION
    SELECT file_id, cpu_end FROM steps
), segments AS (
    SELECT file_id, seg_start, lead(seg_start) OVER (PARTITION BY file_id ORDER BY seg_start) AS seg_end
    FROM bounds
), stepped AS (
    SELECT g.file_id, g.seg_start, g.seg_end, min(s.step) AS step
    FROM segments g
    JOIN steps s ON s.file_id = g.file_id AND s.cpu_start <= g.seg_start AND g.seg_start < s.cpu_end
    GROUP BY g.file_id, g.seg_start, g.seg_end
), slicing AS (
    SELECT file_id, min(seg_start) AS origin,
           slice_width(min(seg_start), max(seg_end), count(*)) AS width
    FROM stepped GROUP BY file_id
)
SELECT s.file_id, l.origin, l.width,
       unnest(slices_of(s.seg_start, s.seg_end, l.origin, l.width)) AS slice,
       s.seg_start, s.seg_end, s.step
FROM stepped s JOIN slicing l USING (file_id);

-- The graph flag comes from the file's few names, joined by id, not from each launch's name string.
CREATE OR REPLACE TEMP TABLE h_launch_calls AS
SELECT l.file_id, l.correlation, min(l.ts_ns) AS launch_ns, bool_or(n.graph) AS graph, min(g.step) AS step
FROM (SELECT l.file_id, l.correlation, l.name_id, l.ts_ns, slice_of(l.ts_ns, f.origin, f.width) AS slice
      FROM launches l
      JOIN t_files USING (file_id)
      LEFT JOIN (SELECT DISTINCT file_id, origin, width FROM h_step_segments) f USING (file_id)
      WHERE l.correlation IS NOT NULL AND in_batch(l.file_id)) l
JOIN (SELECT file_id, name_id, list_contains(getvariable('graph_launches'), name) AS graph FROM names) n
  ON n.file_id = l.file_id AND n.name_id = l.name_id
LEFT JOIN h_step_segments g
  ON g.file_id = l.file_id AND g.slice = l.slice AND l.ts_ns >= g.seg_start AND l.ts_ns < g.seg_end
GROUP BY l.file_id, l.correlation;
