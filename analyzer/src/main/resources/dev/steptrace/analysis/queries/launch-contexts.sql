-- A phase's kernel time by what enclosed the launch (docs/reports.md, "By op, annotation and module"): for the
-- layer asked (op, annotation or module of kernel_contexts), each name's kernels, per rank over the rank's steps of
-- the phase, then summed over ranks and divided by the number of ranks with steps (as top-kernels); launches that
-- nothing of that layer enclosed are left out.
-- Parameters: capture_id, analysis_key, phase, layer ('op', 'annotation' or 'module')
-- Reads:   step_metrics, kernel_contexts
-- Returns: context, name (the kernel), ms_per_step, calls_per_step; by context, then the most time first
-- Portability: getvariable and GROUP BY ALL are DuckDB's.
WITH steps AS (
    SELECT rank, count(*) AS steps FROM step_metrics
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND phase = getvariable('phase') AND rank IS NOT NULL
    GROUP BY rank
), per_rank AS (
    SELECT rank, CASE getvariable('layer') WHEN 'op' THEN op WHEN 'annotation' THEN annotation ELSE module END AS context,
           name, sum(ns) AS ns, sum(calls) AS calls
    FROM kernel_contexts
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND phase = getvariable('phase') AND rank IS NOT NULL
    GROUP BY ALL
)
SELECT context, name, sum(ns / 1e6 / steps) / (SELECT count(*) FROM steps) AS ms_per_step,
       sum(calls / steps) / (SELECT count(*) FROM steps) AS calls_per_step
FROM per_rank JOIN steps USING (rank)
WHERE context IS NOT NULL
GROUP BY context, name
ORDER BY context, ms_per_step DESC, name;
