-- CUDA graph replays per phase (docs/reports.md, "Host-bound steps"): per rank, replays per step (its
-- replays in the phase over its steps of the phase) and the GPU time between one replay's end and the
-- next one's start (mean, median, p90 over its replays, µs), then the mean of each over ranks. The gap
-- figures are NULL where no rank has a second replay.
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics, graph_replays
-- Returns: phase, replays_per_step, gap_mean_us, gap_median_us, gap_p90_us (phases with replays)
-- Portability: getvariable, GROUP BY ALL, any_value and quantile_cont are DuckDB's.
WITH steps AS (
    SELECT file_id, phase, count(*) AS n FROM step_metrics
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') GROUP BY ALL
), per_rank AS (
    SELECT r.file_id, r.phase, count(*) / any_value(s.n) AS per_step,
           avg(r.gap_ns) / 1e3 AS mean_us, quantile_cont(r.gap_ns, 0.5) / 1e3 AS median_us,
           quantile_cont(r.gap_ns, 0.9) / 1e3 AS p90_us
    FROM graph_replays r JOIN steps s USING (file_id, phase)
    WHERE r.capture_id = getvariable('capture_id') AND r.analysis_key = getvariable('analysis_key')
      AND r.rank IS NOT NULL
    GROUP BY r.file_id, r.phase
)
SELECT phase, avg(per_step) AS replays_per_step, avg(mean_us) AS gap_mean_us, avg(median_us) AS gap_median_us,
       avg(p90_us) AS gap_p90_us
FROM per_rank GROUP BY phase ORDER BY phase
