-- Per phase, the totals the straggler shares are taken of (docs/reports.md, "Stragglers"): the matched
-- collective instances, the ranks they span, the waits and the transfer times summed over instances,
-- and the steps every rank has (instances are matched only there: the fewest steps of a rank).
-- Parameters: capture_id, analysis_key
-- Reads:   collective_arrivals, step_metrics
-- Returns: phase, instances, ranks, wait_ns, transfer_ns, steps (phases with instances)
-- Portability: getvariable, GROUP BY ALL and any_value are DuckDB's.
WITH steps AS (
    SELECT phase, min(n) AS steps
    FROM (SELECT phase, rank, count(*) AS n FROM step_metrics
          WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
            AND rank IS NOT NULL
          GROUP BY ALL)
    GROUP BY phase
)
SELECT a.phase, count(*) AS instances, max(a.ranks) AS ranks, sum(a.wait_ns) AS wait_ns,
       sum(a.transfer_ns) AS transfer_ns, any_value(s.steps) AS steps
FROM collective_arrivals a JOIN steps s USING (phase)
WHERE a.capture_id = getvariable('capture_id') AND a.analysis_key = getvariable('analysis_key')
GROUP BY a.phase ORDER BY a.phase
