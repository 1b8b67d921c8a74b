-- Recompiles inside the capture (rule recompiles of docs/warnings.md): per step, Dynamo / Inductor compilation
-- (entire_frame_compile, backend_compile, inductor_compile ranges) and the compiled regions entered for the first
-- time after the file's first step with a recompile number above 0 ('Torch-Compiled Region: N/M', M > 0: frame N's
-- M-th compilation).
-- Parameters: capture_id, analysis_key
-- Reads:   step_compile_events, steps
-- Returns: phase, rank, step, step_name (the step's annotation), evidence (compile, new_region), name, calls, ns
--          (CPU time); in step order
-- Portability: getvariable, regexp_extract, QUALIFY and :: casts are DuckDB's.
WITH ev AS (
    SELECT e.phase, e.rank, e.file_id, e.step, s.name AS step_name, e.event, e.name, e.calls, e.ns
    FROM step_compile_events e
    JOIN steps s ON s.capture_id = e.capture_id AND s.analysis_key = e.analysis_key AND s.file_id = e.file_id
     AND s.step = e.step
    WHERE e.capture_id = getvariable('capture_id') AND e.analysis_key = getvariable('analysis_key')
), first_steps AS (
    SELECT file_id, min(step) AS step0 FROM steps
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
    GROUP BY file_id
), new_regions AS (
    SELECT ev.* FROM ev
    WHERE event = 'compiled_region' AND regexp_extract(name, '/(\d+)$', 1)::BIGINT > 0
    QUALIFY row_number() OVER (PARTITION BY file_id, name ORDER BY step) = 1
)
SELECT phase, rank, step, step_name, 'compile' AS evidence, name, calls, ns FROM ev WHERE event = 'compile'
UNION ALL
SELECT n.phase, n.rank, n.step, n.step_name, 'new_region', n.name, n.calls, n.ns
FROM new_regions n JOIN first_steps f ON f.file_id = n.file_id AND n.step > f.step0
ORDER BY phase, rank, step, evidence, name
