-- Stage 66, the host syncs of each step (rank-local; docs/reports.md, "Step time"): its host-sync calls with the
-- idle_sync time they caused, from the idle spans of stage 65 (StepTimeParts).
-- Reads:  cpu_ops (store); t_step_times, h_sync_calls, h_idle_spans, t_files (the batches)
-- Writes: t_host_syncs(file_id, rank, step, phase, call, op_name_id, calls, call_ns, idle_ns): the step's
--             host-sync calls by call and by the CPU op that issued them (its innermost op, by external
--             id; NULL: none), their time, and the idle_sync time they caused
-- Per batch: its statements run once per batch of the capture's files (SqlStage).
-- Portability: ASOF JOIN, GROUP BY ALL, any_value and :: casts are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_host_syncs AS
WITH calls AS (
    SELECT l.file_id, w.step, l.ts_ns, l.dur_ns, l.name_id, l.external_id, l.call
    FROM h_sync_calls l
    ASOF JOIN t_step_times w ON w.file_id = l.file_id AND l.ts_ns >= w.start_ns
    WHERE l.ts_ns < w.end_ns AND in_batch(l.file_id)
), issued AS (
    -- the innermost CPU op around the call: Kineto gives a runtime call its op's external id. The batch's ops
    -- alone: the join does not carry the calls' batch to them, and each batch would read every file's ops.
    SELECT c.file_id, c.step, c.ts_ns, c.dur_ns, c.name_id, c.call, any_value(o.name_id) AS op_name_id
    FROM calls c
    LEFT JOIN (SELECT file_id, external_id, name_id FROM cpu_ops WHERE kind = 'cpu_op' AND in_batch(file_id)) o
      ON o.file_id = c.file_id AND o.external_id = c.external_id
    GROUP BY ALL
), caused AS (
    SELECT file_id, sync_ts, sync_name_id, sum(e - s) AS idle_ns
    FROM h_idle_spans WHERE part = 'idle_sync' AND in_batch(file_id) GROUP BY ALL
)
SELECT c.file_id, t.rank, c.step, t.phase, c.call, c.op_name_id, count(*) AS calls, sum(c.dur_ns)::BIGINT AS call_ns,
       coalesce(sum(d.idle_ns), 0)::BIGINT AS idle_ns
FROM issued c
JOIN t_step_times t USING (file_id, step)
LEFT JOIN caused d ON d.file_id = c.file_id AND d.sync_ts = c.ts_ns AND d.sync_name_id = c.name_id
GROUP BY ALL;
