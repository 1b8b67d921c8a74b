-- The parts of the steps' critical paths per phase and rank (docs/whatif.md, "Critical path"): each part's total
-- over the rank's steps (ns); divided by the rank's steps (step-times), they sum to its step time.
-- Parameters: capture_id, analysis_key
-- Reads:   critical_path
-- Returns: phase, rank, part, ns
-- Portability: getvariable is DuckDB's.
SELECT phase, rank, part, sum(ns)
FROM critical_path
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
GROUP BY phase, rank, part ORDER BY phase, rank, part
