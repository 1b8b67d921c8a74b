-- Stage 66, what the GPU's idle time in steps ran beside (rank-local; docs/reports.md, "Step time"): the host-sync
-- calls of each step with the idle_sync time they caused, and the CPU ops that ran while the GPU was idle, from the
-- idle spans of stage 65 (StepTimeParts).
-- Reads:  cpu_ops (store); t_step_times, h_sync_calls, h_idle_spans, t_files
-- Writes: t_host_syncs(file_id, rank, step, phase, call, op_name_id, calls, call_ns, idle_ns): the step's
--             host-sync calls by call and by the CPU op that issued them (its innermost op, by external
--             id; NULL: none), their time, and the idle_sync time they caused;
--         t_idle_cpu_ops(file_id, rank, phase, kind, name_id, calls, idle_ns): CPU ops (and Python
--             functions, where kept) that ran while the GPU was idle inside steps, with the idle time
--             under them (nested ops each count it: inclusive)
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

-- CPU ops under GPU idle time: the idle time before a moment, counted along the idle spans in time order,
-- read at each op's start and end (ASOF); the difference is the idle time the op ran over.
CREATE OR REPLACE TEMP TABLE t_idle_cpu_ops AS
WITH spans AS (
    SELECT file_id, step, s, e,
           coalesce(sum(e - s) OVER (PARTITION BY file_id ORDER BY s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
    FROM h_idle_spans WHERE in_batch(file_id)
), ops AS (
    SELECT o.file_id, o.kind, o.name_id, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns
    FROM cpu_ops o JOIN t_files USING (file_id)
    WHERE o.kind IN ('cpu_op', 'python_function') AND o.dur_ns > 0 AND in_batch(o.file_id)
      AND o.file_id IN (SELECT file_id FROM spans)
), at_start AS (
    -- an op that starts before the file's first idle span has no idle time before it
    SELECT o.*, coalesce(a.before + least(greatest(o.ts_ns - a.s, 0), a.e - a.s), 0) AS idle_at_start
    FROM ops o ASOF LEFT JOIN spans a ON a.file_id = o.file_id AND o.ts_ns >= a.s
), under AS (
    -- the op counts in the step of the last idle span it reaches
    SELECT o.file_id, b.step, o.kind, o.name_id,
           b.before + least(greatest(o.end_ns - b.s, 0), b.e - b.s) - o.idle_at_start AS idle_ns
    FROM at_start o ASOF JOIN spans b ON b.file_id = o.file_id AND o.end_ns >= b.s
)
SELECT u.file_id, t.rank, t.phase, u.kind::VARCHAR AS kind, u.name_id, count(*) AS calls, sum(u.idle_ns)::BIGINT AS idle_ns
FROM under u JOIN t_step_times t USING (file_id, step)
WHERE u.idle_ns > 0
GROUP BY ALL;
