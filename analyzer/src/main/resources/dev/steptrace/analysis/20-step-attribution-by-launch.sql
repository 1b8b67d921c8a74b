-- Stage 20, step attribution by launch (rank-local: each file's rows alone; docs/architecture.md).
-- A GPU operation belongs to the step whose CPU range contains the runtime call with its correlation id
-- (under CUDA graphs, the cudaGraphLaunch every kernel of the replay shares). Operations whose launch is
-- not in the trace at all fall back to the step's GPU window: from the first to the last operation
-- attributed through launches.
-- Reads:  gpu_ops (store); t_files, t_classes, h_launch_calls (stage 19, with steps_by_launch)
-- Writes: t_ops_core(file_id, kind, name_id, stream, ts_ns, dur_ns, correlation, external_id, step,
--         by_launch, variant, launch_ns, graph): launch_ns and graph are the launch call's (stage 19),
--         NULL for an operation whose launch is not in the trace; helper h_launch_windows
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: plain SQL but for the ASOF JOIN and UPDATE ... FROM of the fallback (DuckDB).

-- Ids and numbers only (no strings: half the time to write, less to scan); variant 0 is the class of
-- the operation's name (ContextClasses sets others). The launch call's start and graph flag are joined
-- here once, for stage 60, not again there onto every operation.
CREATE OR REPLACE TEMP TABLE t_ops_core AS
SELECT g.file_id, g.kind, g.name_id, g.stream, g.ts_ns, g.dur_ns, g.correlation, g.external_id,
       l.step, l.step IS NOT NULL AS by_launch, 0::UTINYINT AS variant, l.launch_ns, l.graph
FROM gpu_ops g
JOIN t_files USING (file_id)
SEMI JOIN t_classes k USING (file_id, name_id, kind)
LEFT JOIN h_launch_calls l ON l.file_id = g.file_id AND l.correlation = g.correlation
WHERE g.kind <> 'sync' AND in_batch(g.file_id);

CREATE OR REPLACE TEMP TABLE h_launch_windows AS
SELECT file_id, step, min(ts_ns) AS gpu_start, max(ts_ns + dur_ns) AS gpu_end
FROM t_ops_core WHERE step IS NOT NULL GROUP BY file_id, step;

-- Only operations in no step whose launch is not in the trace at all are looked at.
UPDATE t_ops_core SET step = w.step
FROM (
    SELECT o.file_id, o.ts_ns, o.correlation, w.step
    FROM (SELECT DISTINCT file_id, ts_ns, correlation FROM t_ops_core
          WHERE step IS NULL AND launch_ns IS NULL) o
    ASOF JOIN h_launch_windows w ON o.file_id = w.file_id AND o.ts_ns >= w.gpu_start
    WHERE o.ts_ns < w.gpu_end
) w
WHERE t_ops_core.file_id = w.file_id AND t_ops_core.ts_ns = w.ts_ns AND t_ops_core.step IS NULL
  AND t_ops_core.correlation IS NOT DISTINCT FROM w.correlation;
