-- Per phase, rank, category and subcategory: the kernel time and calls over all the rank's steps of
-- the phase (the report divides by the rank's steps).
-- Parameters: capture_id, analysis_key
-- Reads:   step_categories
-- Returns: phase, rank, category, subcategory, ns, calls, in that order
-- Portability: getvariable and GROUP BY ALL are DuckDB's.
SELECT phase, rank, category, subcategory, sum(ns) AS ns, sum(calls) AS calls
FROM step_categories
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
GROUP BY ALL
ORDER BY phase, rank, category, subcategory
