-- The capture-quality warnings kept with an analysis (analysis_warnings), in the order the report lists them.
-- Parameters: capture_id, analysis_key
-- Reads:   analysis_warnings
-- Returns: code, message
-- Portability: getvariable is DuckDB's.
SELECT code, message
FROM analysis_warnings
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
ORDER BY ordinal;
