-- Each rank's own GPU work per step, for a projection with every rank at the fastest rank's pace (docs/whatif.md,
-- "Changes"): per file, the time of its GPU operations (sync records aside) in its steps' span, but the collective
-- operations matched on every rank (their waits and transfers are not its pace), over its steps.
-- Parameters: capture_id, analysis_key
-- Reads:   gpu_ops (store); step_times, collective_instances
-- Returns: file_id, work_ns_per_step
-- Portability: getvariable is DuckDB's.
WITH span AS (
    SELECT file_id, min(start_ns) AS lo, max(end_ns) AS hi, count(*) AS steps FROM step_times
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
    GROUP BY file_id
), matched AS (
    SELECT file_id, ts_ns, dur_ns FROM collective_instances
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND transfer_ns IS NOT NULL
)
SELECT s.file_id, sum(g.dur_ns) / any_value(s.steps)
FROM span s
JOIN gpu_ops g ON g.file_id = s.file_id AND g.kind <> 'sync' AND g.ts_ns + g.dur_ns >= s.lo AND g.ts_ns <= s.hi
WHERE NOT EXISTS (SELECT 1 FROM matched m WHERE m.file_id = g.file_id AND m.ts_ns = g.ts_ns AND m.dur_ns = g.dur_ns)
GROUP BY s.file_id ORDER BY s.file_id
