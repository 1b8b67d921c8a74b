-- The capture's steps for a replay (docs/whatif.md): per rank's file, each step's window (step_times), its
-- annotation's range (steps), its first GPU operation's start (step_metrics) and its GPU operations
-- (step_categories' calls: what a replay of it holds in memory), in each file's window order; and the file's
-- launch latency and stream gap (replay_latencies).
-- Parameters: capture_id, analysis_key
-- Reads:   step_times, steps, step_metrics, step_categories, replay_latencies
-- Returns: file_id, rank, step, phase, phase_index, start_ns, end_ns, cpu_start_ns, cpu_end_ns, gpu_start_ns, ops, launch_latency_ns,
--          stream_gap_ns
-- Portability: getvariable and USING joins are DuckDB's.
WITH ops AS (
    SELECT file_id, step, sum(calls) AS ops FROM step_categories
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
    GROUP BY file_id, step
)
SELECT t.file_id, t.rank, t.step, t.phase, t.phase_index, t.start_ns, t.end_ns, s.start_ns, s.end_ns,
       m.gpu_start_ns, coalesce(o.ops, 0), r.launch_latency_ns, r.stream_gap_ns
FROM step_times t
JOIN steps s USING (capture_id, analysis_key, file_id, step)
JOIN step_metrics m USING (capture_id, analysis_key, file_id, step)
JOIN replay_latencies r USING (capture_id, analysis_key, file_id)
LEFT JOIN ops o USING (file_id, step)
WHERE t.capture_id = getvariable('capture_id') AND t.analysis_key = getvariable('analysis_key') AND t.rank IS NOT NULL
ORDER BY t.file_id, t.start_ns, t.step
