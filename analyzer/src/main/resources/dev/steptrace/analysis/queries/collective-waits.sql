-- Compute and collective wait per step, per phase and rank (docs/reports.md): the mean, median and p90
-- over the rank's steps of compute_ns (kernel time without the waits) and of wait_ns, in ns.
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics
-- Returns: phase, rank, compute_mean, compute_median, compute_p90, wait_mean, wait_median, wait_p90
-- Portability: getvariable and quantile_cont are DuckDB's.
SELECT phase, rank,
       avg(compute_ns), quantile_cont(compute_ns, 0.5), quantile_cont(compute_ns, 0.9),
       avg(wait_ns), quantile_cont(wait_ns, 0.5), quantile_cont(wait_ns, 0.9)
FROM step_metrics
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
GROUP BY phase, rank ORDER BY phase, rank
