-- Stage 41, collective waits per step (rank-local once stage 40 has matched the instances).
-- wait_ns sums the step's collective waits (0 where none was matched); compute_ns is the kernel time
-- without them. Kernel time counts a rank's spinning inside collectives as work, so the rank everyone
-- waits for has the least of it; compute time ranks the ranks by the work they did.
-- Reads:  t_step_metrics, t_collectives
-- Writes: t_step_waits(file_id, rank, step, phase, phase_index, wait_ns, compute_ns)
-- Portability: GROUP BY ALL, USING and :: casts are DuckDB's shorthand.

CREATE OR REPLACE TEMP TABLE t_step_waits AS
SELECT m.file_id, m.rank, m.step, m.phase, m.phase_index, coalesce(w.wait_ns, 0)::BIGINT AS wait_ns,
       (m.kernel_ns - coalesce(w.wait_ns, 0))::BIGINT AS compute_ns
FROM t_step_metrics m
LEFT JOIN (SELECT file_id, step, sum(wait_ns) AS wait_ns FROM t_collectives GROUP BY ALL) w
    USING (file_id, step);
