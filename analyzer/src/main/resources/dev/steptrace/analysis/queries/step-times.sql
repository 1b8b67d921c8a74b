-- Step time per phase and rank (docs/reports.md, "Step time"): over the rank's steps, the mean, median and
-- p90 of the step time (ns), the eager launch calls and graph launches per step, and the communication
-- hidden under other work per step (ns).
-- Parameters: capture_id, analysis_key
-- Reads:   step_times, step_metrics
-- Returns: phase, rank, steps, mean_ns, median_ns, p90_ns, launches, graph_launches, hidden_ns
-- Portability: getvariable and quantile_cont are DuckDB's.
SELECT t.phase, t.rank, count(*) AS steps,
       avg(t.step_ns), quantile_cont(t.step_ns, 0.5), quantile_cont(t.step_ns, 0.9),
       avg(t.launches), avg(t.graph_launches), avg(coalesce(m.hidden_ns, 0))
FROM step_times t
LEFT JOIN step_metrics m USING (capture_id, analysis_key, file_id, step)
WHERE t.capture_id = getvariable('capture_id') AND t.analysis_key = getvariable('analysis_key') AND t.rank IS NOT NULL
GROUP BY t.phase, t.rank ORDER BY t.phase, t.rank
