-- Each step's kernel time per category, for the report's chart of every step.
-- Parameters: capture_id, analysis_key
-- Reads:   step_categories
-- Returns: file_id, step, category, ns
-- Portability: getvariable, GROUP BY ALL and ORDER BY ALL are DuckDB's.
SELECT file_id, step, category, sum(ns) AS ns
FROM step_categories
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
GROUP BY ALL ORDER BY ALL
