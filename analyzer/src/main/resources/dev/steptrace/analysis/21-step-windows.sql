-- Stage 21, step GPU windows (rank-local): each step's first operation start and last operation end.
-- Reads:  t_ops_core
-- Writes: t_windows(file_id, step, gpu_start, gpu_end, ops)
-- Portability: plain SQL.

CREATE OR REPLACE TEMP TABLE t_windows AS
SELECT file_id, step, min(ts_ns) AS gpu_start, max(ts_ns + dur_ns) AS gpu_end, count(*) AS ops
FROM t_ops_core WHERE step IS NOT NULL GROUP BY file_id, step;
