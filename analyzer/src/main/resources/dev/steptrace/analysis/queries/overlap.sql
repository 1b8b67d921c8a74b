-- Overlap per phase (docs/reports.md, "Overlap"): per rank, the means over its steps of the
-- communication time and of its part hidden under other work (ms), then the mean of those over ranks;
-- phases without communication are left out.
-- Parameters: capture_id, analysis_key
-- Reads:   step_metrics
-- Returns: phase, comm_ms, hidden_ms
-- Portability: getvariable is DuckDB's.
SELECT phase, avg(comm) AS comm_ms, avg(hidden) AS hidden_ms
FROM (SELECT phase, rank, avg(comm_ns) / 1e6 AS comm, avg(hidden_ns) / 1e6 AS hidden
      FROM step_metrics
      WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
      GROUP BY phase, rank)
GROUP BY phase HAVING avg(comm) > 0 ORDER BY phase
