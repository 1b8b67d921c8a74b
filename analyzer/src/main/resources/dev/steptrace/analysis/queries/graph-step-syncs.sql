-- Host syncs inside the steps that replay CUDA graphs (rule host_syncs_in_graph_steps of docs/warnings.md): per
-- phase, the syncs issued by a CPU op (.item()'s aten::_local_scalar_dense, a copy to the host...) in those steps,
-- by op and call, with the GPU idle time they caused; syncs issued by no CPU op (torch.cuda.synchronize() of the
-- serving loop, after the step's last replay) are left out.
-- Parameters: capture_id, analysis_key
-- Reads:   host_syncs, step_times
-- Returns: phase, op, call, calls, call_ns, idle_ns, graph_steps (the phase's steps that replay CUDA graphs, over
--          every rank); most idle time first
-- Portability: getvariable is DuckDB's.
WITH graph_steps AS (
    SELECT file_id, step, phase FROM step_times
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND graph_launches > 0
), counts AS (
    SELECT phase, count(*) AS graph_steps FROM graph_steps GROUP BY phase
)
SELECT h.phase, h.op, h.call, sum(h.calls) AS calls, sum(h.call_ns) AS call_ns, sum(h.idle_ns) AS idle_ns,
       any_value(n.graph_steps) AS graph_steps
FROM host_syncs h
JOIN graph_steps g ON g.file_id = h.file_id AND g.step = h.step
JOIN counts n ON n.phase = h.phase
WHERE h.capture_id = getvariable('capture_id') AND h.analysis_key = getvariable('analysis_key') AND h.op IS NOT NULL
GROUP BY h.phase, h.op, h.call
ORDER BY idle_ns DESC, h.phase, h.op, h.call
