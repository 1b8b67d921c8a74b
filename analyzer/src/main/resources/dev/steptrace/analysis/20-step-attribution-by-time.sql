-- Stage 20, step attribution by time (rank-local), for steps found as bursts of GPU work between idle
-- gaps (step source "gap"): their steps' ranges are GPU times, so an operation belongs to the last step
-- that starts at or before it.
-- Reads:  gpu_ops (store); t_files, t_steps, t_classes, h_launch_calls (stage 19)
-- Writes: t_ops_core (the columns of 20-step-attribution-by-launch; by_launch false)
-- Portability: the ASOF LEFT JOIN is DuckDB's (elsewhere: a range join on the next step's start).

CREATE OR REPLACE TEMP TABLE t_ops_core AS
SELECT g.file_id, g.kind, g.name_id, g.stream, g.ts_ns, g.dur_ns, g.correlation, g.external_id,
       s.step, false AS by_launch, 0::UTINYINT AS variant, l.launch_ns, l.graph
FROM gpu_ops g
JOIN t_files USING (file_id)
SEMI JOIN t_classes k USING (file_id, name_id, kind)
ASOF LEFT JOIN t_steps s ON g.file_id = s.file_id AND g.ts_ns >= s.cpu_start
LEFT JOIN h_launch_calls l ON l.file_id = g.file_id AND l.correlation = g.correlation
WHERE g.kind <> 'sync';
