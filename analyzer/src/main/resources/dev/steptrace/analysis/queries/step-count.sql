-- How many steps the analysis found, and how many of them have no phase (rules no_steps and unknown_phase of
-- docs/warnings.md): one row, zeros when there are none.
-- Parameters: capture_id, analysis_key
-- Reads:   steps
-- Returns: steps, unknown_phase_steps
-- Portability: getvariable and FILTER are DuckDB's.
SELECT count(*) AS steps, count(*) FILTER (WHERE phase = 'unknown') AS unknown_phase_steps
FROM steps
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key');
