-- The parts of the step time per phase and rank (docs/reports.md, "Step time"): each part's total over the
-- rank's steps (ns); divided by the rank's steps (step-times), a part absent from a step counts 0 there.
-- Parameters: capture_id, analysis_key
-- Reads:   step_time_parts
-- Returns: phase, rank, part, ns
-- Portability: getvariable is DuckDB's.
SELECT phase, rank, part, sum(ns)
FROM step_time_parts
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
GROUP BY phase, rank, part ORDER BY phase, rank, part
