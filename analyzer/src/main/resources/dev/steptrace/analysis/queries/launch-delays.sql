-- Launch delays per phase and category (docs/reports.md, "Host-bound steps"): per rank, launches per
-- step (the rank's eager launches in the phase over its steps of the phase) and the delay from launch
-- call to operation start (mean, median, p90, µs), then the mean of each over the ranks that have it.
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics, launch_delays
-- Returns: phase, category, launches_per_step, mean_us, median_us, p90_us; per phase, the categories
--          with the most launches (over all ranks) first
-- Portability: getvariable, GROUP BY ALL are DuckDB's.
WITH steps AS (
    SELECT file_id, phase, count(*) AS n FROM step_metrics
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') GROUP BY ALL
)
SELECT d.phase, d.category, avg(d.ops / s.n) AS launches_per_step, avg(d.mean_ns) / 1e3 AS mean_us,
       avg(d.median_ns) / 1e3 AS median_us, avg(d.p90_ns) / 1e3 AS p90_us
FROM launch_delays d JOIN steps s USING (file_id, phase)
WHERE d.capture_id = getvariable('capture_id') AND d.analysis_key = getvariable('analysis_key') AND d.rank IS NOT NULL
GROUP BY d.phase, d.category ORDER BY d.phase, sum(d.ops) DESC, d.category
