-- Every step of the capture, for the report's chart of every step: its rank, phase, position among
-- the rank's steps of the phase, name, kernel time, span, busy time, host gap and step time (ns), in
-- each rank's order of GPU start.
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics, steps, step_times
-- Returns: file_id, step, rank, phase, phase_index, name, kernel_ns, span_ns, busy_ns, host_gap_ns, step_ns
-- Portability: getvariable and USING joins are DuckDB's.
SELECT m.file_id, m.step, m.rank, m.phase, m.phase_index, s.name, m.kernel_ns, m.span_ns, m.busy_ns,
       m.host_gap_ns, t.step_ns
FROM step_metrics m JOIN steps s USING (capture_id, analysis_key, file_id, step)
LEFT JOIN step_times t USING (capture_id, analysis_key, file_id, step)
WHERE m.capture_id = getvariable('capture_id') AND m.analysis_key = getvariable('analysis_key') AND m.rank IS NOT NULL
ORDER BY m.rank, m.gpu_start_ns NULLS LAST, m.step
