-- Host-bound figures per phase (docs/reports.md, "Host-bound steps"): per rank, the means over its steps
-- of the GPU's idle time, its wait for launches and the span (ms), then the mean of those over ranks.
-- The launch wait is NULL when no file of the capture has launch calls (launch_wait_ns NULL everywhere):
-- unknown, not 0. A phase none of whose steps has a span gives a NULL span (idle time unknown).
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics
-- Returns: phase, idle_ms, launch_wait_ms, span_ms (one row per phase with steps)
-- Portability: getvariable is DuckDB's.
SELECT phase, avg(idle) AS idle_ms,
       CASE WHEN (SELECT count(launch_wait_ns) FROM step_metrics
                  WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')) > 0
            THEN avg(launch_wait) END AS launch_wait_ms,
       avg(span) AS span_ms
FROM (SELECT phase, rank, avg(coalesce(idle_ns, 0)) / 1e6 AS idle,
             avg(coalesce(launch_wait_ns, 0)) / 1e6 AS launch_wait, avg(span_ns) / 1e6 AS span
      FROM step_metrics
      WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
      GROUP BY phase, rank)
GROUP BY phase ORDER BY phase
