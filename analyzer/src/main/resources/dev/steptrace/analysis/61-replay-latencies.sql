-- Stage 61, replay latencies (rank-local; docs/whatif.md, "The model"): per file, the launch latency and the
-- GPU's gap between queued operations that the replay (critical paths, whatif) takes as "at once", where
-- two dependencies could have set an operation's start. One pair per rank, over all its operations, so that
-- a step's critical path is the same whatever run of steps it is replayed in.
--   launch latency: the 10th percentile (quantile_disc) of launch call start to operation start, over the
--     operations whose stream was free when their launch call began (no previous operation on the stream, or
--     it had ended by then); an operation starting before its launch call counts as unlaunched;
--   stream gap: the 10th percentile of the gap after the stream's previous operation (0 where they
--     overlap), over the operations queued behind it: unlaunched, or launched at least the launch latency
--     before the previous one ended.
-- A stream's previous operation is the one before in (start, correlation) order, unless it ended more than
-- rounding_ns after this one started (timestamps rounded to microseconds let queued operations overlap by that
-- much; more is a clock quirk, and the operation follows nothing on its stream), as the replay links them.
-- Without samples: 5 µs and 1 µs, "at once" in a trace that does not say.
-- Parameters (DuckDB variables): rounding_ns (CriticalPaths.STREAM_ROUNDING_NS)
-- Reads:  t_ops_core (its launch_ns: the correlation's first launch call, stage 19), t_files
-- Writes: t_replay_latencies(file_id, rank, launch_latency_ns, launch_samples, stream_gap_ns, stream_gap_samples)
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: getvariable, quantile_disc and greatest are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_replay_latencies AS
WITH ordered AS (
    SELECT file_id, ts_ns, CASE WHEN launch_ns <= ts_ns THEN launch_ns END AS launch_ns,
           lag(ts_ns + dur_ns) OVER (PARTITION BY file_id, stream ORDER BY ts_ns, correlation) AS prev_end
    FROM t_ops_core WHERE in_batch(file_id)
), queued AS (
    SELECT file_id, ts_ns, launch_ns, CASE WHEN prev_end <= ts_ns + getvariable('rounding_ns') THEN prev_end END AS prev_end
    FROM ordered
), latency AS (
    SELECT file_id, quantile_disc(ts_ns - launch_ns, 0.1) AS launch_latency_ns, count(*) AS samples
    FROM queued
    WHERE launch_ns IS NOT NULL AND (prev_end IS NULL OR prev_end < launch_ns)
    GROUP BY file_id
), files AS (
    SELECT f.file_id, f.rank, coalesce(l.launch_latency_ns, 5000) AS launch_latency_ns, coalesce(l.samples, 0) AS samples
    FROM t_files f LEFT JOIN latency l USING (file_id)
    WHERE in_batch(f.file_id)
), gaps AS (
    SELECT q.file_id, quantile_disc(greatest(0, q.ts_ns - q.prev_end), 0.1) AS stream_gap_ns, count(*) AS samples
    FROM queued q JOIN files f USING (file_id)
    WHERE q.prev_end IS NOT NULL AND (q.launch_ns IS NULL OR q.launch_ns + f.launch_latency_ns <= q.prev_end)
    GROUP BY q.file_id
)
SELECT f.file_id, f.rank, f.launch_latency_ns::BIGINT AS launch_latency_ns, f.samples AS launch_samples,
       coalesce(g.stream_gap_ns, 1000)::BIGINT AS stream_gap_ns, coalesce(g.samples, 0) AS stream_gap_samples
FROM files f LEFT JOIN gaps g USING (file_id);
