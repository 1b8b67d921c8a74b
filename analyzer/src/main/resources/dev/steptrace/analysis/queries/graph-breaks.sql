-- Graph breaks (rule graph_breaks of docs/warnings.md): per step, the compiled regions entered inside another one
-- (resumed_region: Dynamo's resume function after a graph break) and the GPU work launched eagerly between the
-- step's compiled regions (eager_between, by launching op), beside the number of the phase's steps.
-- Parameters: capture_id, analysis_key
-- Reads:   step_compile_events, steps
-- Returns: phase, rank, step, step_name (the step's annotation), event (resumed_region, eager_between), name,
--          calls (regions entered; launches), ns (CPU time of the regions; GPU time of the eager work),
--          phase_steps (the phase's steps over every rank); in step order
-- Portability: getvariable is DuckDB's.
WITH phase_steps AS (
    SELECT phase, count(*) AS phase_steps FROM steps
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
    GROUP BY phase
)
SELECT e.phase, e.rank, e.step, s.name AS step_name, e.event, e.name, e.calls, e.ns, p.phase_steps
FROM step_compile_events e
JOIN steps s ON s.capture_id = e.capture_id AND s.analysis_key = e.analysis_key AND s.file_id = e.file_id
 AND s.step = e.step
JOIN phase_steps p ON p.phase = e.phase
WHERE e.capture_id = getvariable('capture_id') AND e.analysis_key = getvariable('analysis_key')
  AND e.event IN ('resumed_region', 'eager_between')
ORDER BY e.phase, e.rank, e.step, e.event, e.name
