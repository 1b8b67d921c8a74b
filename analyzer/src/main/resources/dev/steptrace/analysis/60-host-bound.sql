-- Stage 60, host-bound (rank-local): whether the GPU waits for the CPU (docs/reports.md, "Host-bound
-- steps").
-- Reads:  t_ops_core (its launch_ns and graph), t_classes, t_step_metrics, h_launch_calls (stage 19), t_files
-- Writes: t_step_host(file_id, rank, step, phase, phase_index, idle_ns, launch_wait_ns): the GPU's idle
--             time inside the step (span minus busy) and the part of it spent waiting for the CPU to
--             launch: the gaps after which the next operation's launch call began only when the GPU was
--             already idle (NULL in a file without launch calls: unknown);
--         t_launch_delays(file_id, rank, phase, category, ops, mean_ns, median_ns, p90_ns): per category,
--             the delay from an eager launch call's start to its operation's start (operations of graph
--             replays are left out: the replay's one launch says nothing about each kernel);
--         t_graph_replays(file_id, rank, step, phase, correlation, start_ns, end_ns, gap_ns): each graph
--             replay with kernels in a step, its GPU window, and the GPU time since the previous replay
--             of the file ended (NULL for the first)
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: quantile_cont and GROUP BY ALL are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_step_host AS
WITH ordered AS (
    -- idle_since: when this rank's GPU last had nothing running (the latest end so far, any
    -- stream). One window per file in time order, as for busy time (stage 30); an operation
    -- whose predecessor is in another step starts its step, and its gap is the host gap.
    SELECT o.file_id, o.step, o.ts_ns, o.launch_ns,
           max(o.ts_ns + o.dur_ns) OVER w AS idle_since, lag(o.step) OVER w AS prev_step
    FROM t_ops_core o
    WHERE o.step IS NOT NULL AND in_batch(o.file_id)
    WINDOW w AS (PARTITION BY o.file_id ORDER BY o.ts_ns ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
), waits AS (
    SELECT file_id, step, sum(ts_ns - idle_since) AS launch_wait_ns
    FROM ordered
    WHERE prev_step = step AND ts_ns > idle_since AND launch_ns >= idle_since
    GROUP BY file_id, step
)
SELECT m.file_id, m.rank, m.step, m.phase, m.phase_index, coalesce(m.idle_ns, 0) AS idle_ns,
       CASE WHEN m.file_id IN (SELECT DISTINCT file_id FROM h_launch_calls WHERE in_batch(file_id))
            THEN least(coalesce(w.launch_wait_ns, 0), coalesce(m.idle_ns, 0)) END::BIGINT AS launch_wait_ns
FROM t_step_metrics m LEFT JOIN waits w USING (file_id, step)
WHERE in_batch(m.file_id);

CREATE OR REPLACE TEMP TABLE t_launch_delays AS
SELECT file_id, rank, phase, category, ops, mean_ns, quantiles[1] AS median_ns, quantiles[2] AS p90_ns
FROM (
    SELECT m.file_id, m.rank, m.phase, k.category, count(*) AS ops,
           avg(o.ts_ns - o.launch_ns) AS mean_ns,
           -- both quantiles from one sort of the delays (two quantile_cont calls keep and sort them twice)
           quantile_cont(o.ts_ns - o.launch_ns, [0.5, 0.9]) AS quantiles
    FROM t_ops_core o
    JOIN t_classes k USING (file_id, name_id, kind, variant)
    JOIN t_step_metrics m USING (file_id, step)
    WHERE NOT o.graph AND in_batch(o.file_id)
    GROUP BY ALL
);

CREATE OR REPLACE TEMP TABLE t_graph_replays AS
WITH replays AS (
    -- Aggregated on the operations alone: the steps' ranks and phases are joined to the few replays.
    SELECT o.file_id, o.correlation, any_value(o.step) AS step, min(o.ts_ns) AS start_ns,
           max(o.ts_ns + o.dur_ns) AS end_ns
    FROM t_ops_core o
    WHERE o.graph AND o.step IS NOT NULL
    GROUP BY o.file_id, o.correlation
)
SELECT r.file_id, m.rank, r.step, m.phase, r.correlation, r.start_ns, r.end_ns,
       r.start_ns - lag(r.end_ns) OVER (PARTITION BY r.file_id ORDER BY r.start_ns) AS gap_ns
FROM replays r JOIN t_step_metrics m USING (file_id, step);
