-- Per phase and rank, the distribution over the rank's steps of each per-step figure of the report
-- (docs/reports.md): steps, total kernel time, then mean, median and p90 of kernel time, span, busy
-- time and host gap (ns; NULL where no step has the figure).
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics
-- Returns: phase, rank, steps, kernel_ns, then (mean, median, p90) of kernel_ns, span_ns, busy_ns, host_gap_ns
-- Portability: getvariable and quantile_cont are DuckDB's.
SELECT phase, rank, count(*) AS steps, sum(kernel_ns),
       avg(kernel_ns), quantile_cont(kernel_ns, 0.5), quantile_cont(kernel_ns, 0.9),
       avg(span_ns), quantile_cont(span_ns, 0.5), quantile_cont(span_ns, 0.9),
       avg(busy_ns), quantile_cont(busy_ns, 0.5), quantile_cont(busy_ns, 0.9),
       avg(host_gap_ns), quantile_cont(host_gap_ns, 0.5), quantile_cont(host_gap_ns, 0.9)
FROM step_metrics
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
GROUP BY phase, rank ORDER BY phase, rank
