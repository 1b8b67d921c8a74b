-- After a step source's stage (StepDetector): how many notes of one code the stages left, e.g. why a file's NVTX
-- ranges are not steps (stage 12, nvtx_ranges_not_steps), which makes the next source the capture's.
-- Parameters: code
-- Reads:   t_step_notes
-- Returns: notes
-- Portability: getvariable is DuckDB's.
SELECT count(*) AS notes FROM t_step_notes WHERE code = getvariable('code');
