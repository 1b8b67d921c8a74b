-- Where the steps of an analysis came from, read from its steps (an analysis the Spark application assembled has no
-- analyses row, docs/spark.md); NULL when it has no steps.
-- Parameters: capture_id, analysis_key
-- Reads:   steps
-- Returns: source
-- Portability: getvariable is DuckDB's.
SELECT min(source) AS source
FROM steps
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key');
