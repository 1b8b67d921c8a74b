-- A diff side's step-time parts (docs/diff.md): per phase, each step's parts (ns), in a fixed order.
-- Parameters: capture_id, analysis_key
-- Reads:   step_time_parts
-- Returns: phase, file_id, step, part, ns
-- Portability: getvariable is DuckDB's.
SELECT phase, file_id, step, part, ns
FROM step_time_parts
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
ORDER BY phase, file_id, step, part
