-- What a straggler was busy with before it arrived last (docs/reports.md, "Stragglers"): in one phase,
-- the wait it caused (ns, summed) by the category its instance's after_category names, and that
-- wait's share (%) of all it caused in the phase.
-- Parameters: capture_id, analysis_key, phase, rank
-- Reads:   collective_arrivals
-- Returns: after_category, caused_wait_ns, share_pct; the most caused wait first
-- Portability: getvariable and GROUP BY ALL are DuckDB's.
SELECT after_category, sum(wait_ns) AS caused_wait_ns,
       coalesce(100 * sum(wait_ns) / nullif(sum(sum(wait_ns)) OVER (), 0), 0) AS share_pct
FROM collective_arrivals
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
  AND phase = getvariable('phase') AND last_rank = getvariable('rank')
GROUP BY ALL ORDER BY 2 DESC, 1 NULLS LAST
