-- Per phase, each rank that arrived last at a collective instance at least once (docs/reports.md,
-- "Stragglers"): how often, and the other ranks' waits at those instances, summed.
-- Parameters: capture_id, analysis_key
-- Reads:   collective_arrivals
-- Returns: phase, last_rank, instances, caused_wait_ns; per phase, the most caused wait first
-- Portability: getvariable is DuckDB's.
SELECT phase, last_rank, count(*) AS instances, sum(wait_ns) AS caused_wait_ns
FROM collective_arrivals
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
GROUP BY phase, last_rank ORDER BY phase, sum(wait_ns) DESC, last_rank
