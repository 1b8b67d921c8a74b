-- Stage 20, step attribution by launch (rank-local: each file's rows alone; docs/architecture.md).
-- A GPU operation belongs to the step whose CPU range contains the runtime call with its correlation id
-- (under CUDA graphs, the cudaGraphLaunch every kernel of the replay shares). Operations whose launch is
-- not in the trace at all fall back to the step's GPU window: from the first to the last operation
-- attributed through launches.
-- Reads:  launches, gpu_ops (store); t_files, t_steps, t_classes
-- Writes: t_ops_core(file_id, kind, name_id, stream, ts_ns, dur_ns, correlation, external_id, step,
--         by_launch, variant); helpers h_step_segments (the steps' segments by slice of the file's
--         time), h_launch_step, h_launch_windows
-- Portability: plain SQL but for unnest, the slice macros (macros.sql), and the ASOF JOIN and UPDATE ...
-- FROM of the fallback (DuckDB).

-- The steps' CPU ranges cut at every start and end into segments that do not overlap, each with the
-- first step that contains it (steps may overlap), and the segments listed by the equal slices of the
-- file's time they touch (about twice as many slices as segments): a launch's step is then its segment's,
-- found by an equi-join on (file, slice), and only the few segments of its slice are compared. Joining
-- the launches onto the steps' ranges compares every launch with every step of its file; an ASOF JOIN
-- sorts all the launches (docs/performance.md, "The analysis after ingest").
CREATE OR REPLACE TEMP TABLE h_step_segments AS
WITH bounds AS (
    SELECT file_id, cpu_start AS seg_start FROM t_steps
    UNION
    SELECT file_id, cpu_end FROM t_steps
), segments AS (
    SELECT file_id, seg_start, lead(seg_start) OVER (PARTITION BY file_id ORDER BY seg_start) AS seg_end
    FROM bounds
), stepped AS (
    SELECT g.file_id, g.seg_start, g.seg_end, min(s.step) AS step
    FROM segments g
    JOIN t_steps s ON s.file_id = g.file_id AND s.cpu_start <= g.seg_start AND g.seg_start < s.cpu_end
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

CREATE OR REPLACE TEMP TABLE h_launch_step AS
SELECT l.file_id, l.correlation, min(g.step) AS step
FROM (SELECT l.file_id, l.correlation, l.ts_ns, slice_of(l.ts_ns, f.origin, f.width) AS slice
      FROM launches l
      JOIN (SELECT DISTINCT file_id, origin, width FROM h_step_segments) f USING (file_id)
      WHERE l.correlation IS NOT NULL) l
JOIN h_step_segments g ON g.file_id = l.file_id AND g.slice = l.slice
WHERE l.ts_ns >= g.seg_start AND l.ts_ns < g.seg_end
GROUP BY l.file_id, l.correlation;

-- Ids and numbers only (no strings: half the time to write, less to scan); variant 0 is the class of
-- the operation's name (ContextClasses sets others).
CREATE OR REPLACE TEMP TABLE t_ops_core AS
SELECT g.file_id, g.kind, g.name_id, g.stream, g.ts_ns, g.dur_ns, g.correlation, g.external_id,
       ls.step, ls.step IS NOT NULL AS by_launch, 0::UTINYINT AS variant
FROM gpu_ops g
JOIN t_files USING (file_id)
SEMI JOIN t_classes k USING (file_id, name_id, kind)
LEFT JOIN h_launch_step ls ON ls.file_id = g.file_id AND ls.correlation = g.correlation
WHERE g.kind <> 'sync';

CREATE OR REPLACE TEMP TABLE h_launch_windows AS
SELECT file_id, step, min(ts_ns) AS gpu_start, max(ts_ns + dur_ns) AS gpu_end
FROM t_ops_core WHERE step IS NOT NULL GROUP BY file_id, step;

-- Only operations in no step so far are looked at: whether their launch is in the trace at all is
-- checked on that (small) set, not joined onto every operation.
UPDATE t_ops_core SET step = w.step
FROM (
    SELECT o.file_id, o.ts_ns, o.correlation, w.step
    FROM (SELECT DISTINCT file_id, ts_ns, correlation FROM t_ops_core o
          WHERE step IS NULL AND NOT EXISTS (
              SELECT 1 FROM launches l WHERE l.file_id = o.file_id AND l.correlation = o.correlation)) o
    ASOF JOIN h_launch_windows w ON o.file_id = w.file_id AND o.ts_ns >= w.gpu_start
    WHERE o.ts_ns < w.gpu_end
) w
WHERE t_ops_core.file_id = w.file_id AND t_ops_core.ts_ns = w.ts_ns AND t_ops_core.step IS NULL
  AND t_ops_core.correlation IS NOT DISTINCT FROM w.correlation;
