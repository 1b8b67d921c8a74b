-- A straggler's call sites (docs/reports.md, "Stragglers"): in one phase, the collectives (type and
-- position k in the step) at which the rank arrived last, with how many of the site's instances that
-- was, the wait it caused there (ns, summed) and what it was busy with before its most costly arrival.
-- Parameters: capture_id, analysis_key, phase, rank, spots (how many sites)
-- Reads:   collective_arrivals
-- Returns: type, k, late_instances, site_instances, caused_wait_ns, after_category; the most caused wait
--          first, at most spots rows
-- Portability: getvariable, GROUP BY ALL, any_value and arg_max are DuckDB's.
WITH a AS (
    SELECT * FROM collective_arrivals
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND phase = getvariable('phase')
), sites AS (
    SELECT type, k, count(*) AS instances FROM a GROUP BY ALL
)
SELECT i.type, i.k, count(*) AS late_instances, any_value(sites.instances) AS site_instances,
       sum(i.wait_ns) AS caused_wait_ns, arg_max(i.after_category, i.wait_ns) AS after_category
FROM a i JOIN sites USING (type, k)
WHERE i.last_rank = getvariable('rank')
GROUP BY i.type, i.k ORDER BY sum(i.wait_ns) DESC, i.type, i.k LIMIT getvariable('spots')
