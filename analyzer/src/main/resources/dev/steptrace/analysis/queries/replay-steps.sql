-- The capture's steps for a replay (docs/whatif.md): per rank's file, each step's window (step_times), its
-- annotation's range (steps) and its first GPU operation's start, and the step's compute time (kernel time
-- less collective waits, step_metrics), in each file's window order.
-- Parameters: capture_id, analysis_key
-- Reads:   step_times, steps, step_metrics
-- Returns: file_id, rank, step, phase, phase_index, start_ns, end_ns, cpu_start_ns, cpu_end_ns, gpu_start_ns,
--          compute_ns
-- Portability: getvariable and USING joins are DuckDB's.
SELECT t.file_id, t.rank, t.step, t.phase, t.phase_index, t.start_ns, t.end_ns, s.start_ns, s.end_ns,
       m.gpu_start_ns, m.compute_ns
FROM step_times t
JOIN steps s USING (capture_id, analysis_key, file_id, step)
JOIN step_metrics m USING (capture_id, analysis_key, file_id, step)
WHERE t.capture_id = getvariable('capture_id') AND t.analysis_key = getvariable('analysis_key') AND t.rank IS NOT NULL
ORDER BY t.file_id, t.start_ns, t.step
