-- Host-sync calls per phase and rank, by call and by the op that issued them (docs/reports.md, "The CPU
-- side"): calls, time in the calls and the GPU idle time they caused, summed over the rank's steps (ns). The
-- report divides by the rank's steps and averages over ranks in rank order (exact sums here, so the same
-- analysis always gives the same figures).
-- Parameters: capture_id, analysis_key
-- Reads:   host_syncs
-- Returns: phase, rank, call, op, calls, call_ns, idle_ns
-- Portability: getvariable is DuckDB's.
SELECT phase, rank, call, op, sum(calls), sum(call_ns), sum(idle_ns)
FROM host_syncs
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
GROUP BY phase, rank, call, op ORDER BY phase, rank, call, op NULLS LAST
