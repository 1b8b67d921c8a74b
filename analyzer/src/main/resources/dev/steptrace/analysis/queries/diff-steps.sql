-- A diff side's steps (docs/diff.md): per phase, each step's rank, position among the rank's steps of
-- the phase, kernel time and span (ns), in a fixed order (the bootstrap's grid is built from it).
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics
-- Returns: phase, file_id, step, rank, phase_index, kernel_ns, span_ns
-- Portability: getvariable is DuckDB's.
SELECT phase, file_id, step, rank, phase_index, kernel_ns, span_ns
FROM step_metrics
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
ORDER BY phase, rank, phase_index, file_id, step
