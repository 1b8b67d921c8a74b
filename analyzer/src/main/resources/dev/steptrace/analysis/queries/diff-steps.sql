-- A diff side's steps (docs/diff.md): per phase, each step's rank, position among the rank's steps of
-- the phase, kernel time, span and step time (ns), in a fixed order (the bootstrap's grid is built from it).
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics, step_times
-- Returns: phase, file_id, step, rank, phase_index, kernel_ns, span_ns, step_ns
-- Portability: getvariable and USING joins are DuckDB's.
SELECT m.phase, m.file_id, m.step, m.rank, m.phase_index, m.kernel_ns, m.span_ns, t.step_ns
FROM step_metrics m
LEFT JOIN step_times t USING (capture_id, analysis_key, file_id, step)
WHERE m.capture_id = getvariable('capture_id') AND m.analysis_key = getvariable('analysis_key') AND m.rank IS NOT NULL
ORDER BY m.phase, m.rank, m.phase_index, m.file_id, m.step
