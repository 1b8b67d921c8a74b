-- The CPU ops (and Python functions) that ran while the GPU was idle, per phase and rank (docs/reports.md,
-- "The CPU side"): the idle time under each and its calls, summed over the rank's steps (ns). The report
-- divides by the rank's steps, averages over ranks in rank order and keeps the top ones.
-- Parameters: capture_id, analysis_key
-- Reads:   idle_cpu_ops
-- Returns: phase, rank, name, kind, calls, idle_ns
-- Portability: getvariable is DuckDB's.
SELECT phase, rank, name, kind, sum(calls), sum(idle_ns)
FROM idle_cpu_ops
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
GROUP BY phase, rank, name, kind ORDER BY phase, rank, name, kind
