-- A phase's kernels (and memcpy/memset) by time per step (docs/reports.md, "What the report shows"): per rank,
-- each name and class's time and calls over the rank's steps of the phase, divided by those steps, then
-- summed over ranks and divided by the number of ranks with steps in the phase (a rank without the
-- kernel counts as 0). A name some of whose launches got another class from their context is listed
-- once per class (kernel_classes' variant).
-- Parameters: capture_id, analysis_key, phase, top (how many rows)
-- Reads:   step_metrics, step_kernels, kernel_classes
-- Returns: name, category, subcategory, rule_id, ms_per_step, calls_per_step; the most time first
-- Portability: getvariable and GROUP BY ALL are DuckDB's.
WITH steps AS (
    SELECT rank, count(*) AS steps FROM step_metrics
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND phase = getvariable('phase') AND rank IS NOT NULL
    GROUP BY rank
), per_rank AS (
    SELECT k.rank, k.name, c.category, c.subcategory, c.rule_id, sum(k.ns) AS ns, sum(k.calls) AS calls
    FROM (SELECT rank, name, kind, variant, sum(ns) AS ns, sum(calls) AS calls FROM step_kernels
          WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
            AND phase = getvariable('phase') AND rank IS NOT NULL
          GROUP BY rank, name, kind, variant) k
    JOIN kernel_classes c ON c.capture_id = getvariable('capture_id') AND c.analysis_key = getvariable('analysis_key')
         AND c.name = k.name AND c.kind = k.kind AND c.variant = k.variant
    GROUP BY ALL
)
SELECT name, category, subcategory, rule_id,
       sum(ns / 1e6 / steps) / (SELECT count(*) FROM steps) AS ms_per_step,
       sum(calls / steps) / (SELECT count(*) FROM steps) AS calls_per_step
FROM per_rank JOIN steps USING (rank)
GROUP BY name, category, subcategory, rule_id
ORDER BY ms_per_step DESC, name, rule_id LIMIT getvariable('top')
