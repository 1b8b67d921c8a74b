-- The batch size of a phase's steps, from their annotations (decide's CaptureBatch, docs/scenarios.md): every step
-- annotation inside each kept step of the phase (the step's own name, or one inside it: SGLang's step[...] inside
-- the execute_ form), in time order; Java reads vLLM's and SGLang's batch sizes from the first that says.
-- Step annotations are selected as stage 10-step-annotations selects them (StageDataTest checks the condition).
-- Parameters: capture_id, analysis_key, phase
-- Reads:   steps, cpu_ops, names
-- Returns: file_id, step, name (per step, by time)
-- Portability: getvariable is DuckDB's.
WITH s AS (
    SELECT file_id, step, start_ns, end_ns FROM steps
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND phase = getvariable('phase')
), a AS (
    SELECT o.file_id, n.name, o.ts_ns
    FROM cpu_ops o JOIN names n ON n.file_id = o.file_id AND n.name_id = o.name_id
    WHERE o.file_id IN (SELECT file_id FROM s)
      AND (o.kind = 'user_annotation' OR (o.kind = 'cpu_op' AND n.name LIKE 'ProfilerStep#%'))
)
SELECT s.file_id, s.step, a.name
FROM s JOIN a ON a.file_id = s.file_id AND a.ts_ns >= s.start_ns AND a.ts_ns < s.end_ns
ORDER BY s.file_id, s.step, a.ts_ns, a.name;
