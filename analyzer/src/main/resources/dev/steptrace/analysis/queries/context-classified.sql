-- A phase's kernels classified by their context, not their name alone (docs/taxonomy.md, "Classes from context"
-- and "Classes from the launching op"): the time and calls of the classes some operations got from their context
-- (kernel_classes variant > 0), per step as top-kernels counts them. One row; 0 when none.
-- Parameters: capture_id, analysis_key, phase
-- Reads:   step_metrics, step_kernels
-- Returns: ms_per_step, calls_per_step
-- Portability: getvariable is DuckDB's.
WITH steps AS (
    SELECT rank, count(*) AS steps FROM step_metrics
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND phase = getvariable('phase') AND rank IS NOT NULL
    GROUP BY rank
), per_rank AS (
    SELECT rank, sum(ns) AS ns, sum(calls) AS calls FROM step_kernels
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND phase = getvariable('phase') AND rank IS NOT NULL AND variant > 0
    GROUP BY rank
)
SELECT coalesce(sum(ns / 1e6 / steps), 0) / greatest((SELECT count(*) FROM steps), 1) AS ms_per_step,
       coalesce(sum(calls / steps), 0) / greatest((SELECT count(*) FROM steps), 1) AS calls_per_step
FROM per_rank JOIN steps USING (rank);
