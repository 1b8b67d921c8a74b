-- Stage 65, step time (rank-local): where each step's wall time goes (docs/reports.md, "Step time").
-- A step's time is its window on the rank: from its start to the next step's start (the last step: to
-- the later of its own end and its last operation's end). The start is the step's CPU start, or, for
-- steps that are graph replays or bursts of GPU work (gpu_anchored), its first operation's start. The
-- window is cut into the moments the GPU runs something (any of the file's operations, of this step or
-- not) and those it runs nothing, and each moment goes to exactly one part, so the parts of a step sum
-- to its window:
--   busy, by what runs: a kernel category (attention, moe_gemm, gemm, routing, memcpy, other); while only
--     collectives run, their exposed time, comm_allreduce or comm_other (the store's view step_time_parts
--     then moves the time the step's collectives waited for other ranks to comm_wait). Moments where several categories run at
--     once (on several streams) are shared equally among them; communication under other work is hidden
--     and counts as that work (step_metrics.hidden_ns says how much).
--   idle, by cause, in this order: idle_sync (a host-sync call, host_syncs, was running when the GPU went
--     idle: the CPU waited for the GPU to drain), idle_before (before the step's first operation),
--     idle_after (after its last), idle_launch (the next operation's launch call began only once the GPU
--     was idle: waiting for the CPU to launch, as stage 60 counts it), idle_other.
-- Parameters (DuckDB variables): gpu_anchored (steps start at their first GPU operation), host_syncs (the
--             runtime calls that block the CPU until the GPU catches up, a list)
-- Reads:  launches, cpu_ops (store); t_steps, t_step_metrics, t_ops_core, t_classes, t_files
-- Writes: t_step_times(file_id, rank, step, phase, phase_index, start_ns, end_ns, step_ns, launches,
--             graph_launches): the window, and the step's eager launch calls and graph launches (of
--             operations attributed to it);
--         t_step_parts_by_category(file_id, rank, step, phase, phase_index, part, ns): the parts, summing
--             to step_ns (each rounded to a nanosecond: within a few ns of it), exposed communication by
--             kind (kept as step_time_base; the view step_time_parts splits off its waits);
--         t_host_syncs(file_id, rank, step, phase, call, op_name_id, calls, call_ns, idle_ns): the step's
--             host-sync calls by call and by the CPU op that issued them (its innermost op, by external
--             id; NULL: none), their time, and the idle_sync time they caused;
--         t_idle_cpu_ops(file_id, rank, phase, kind, name_id, calls, idle_ns): CPU ops (and Python
--             functions, where kept) that ran while the GPU was idle inside steps, with the idle time
--             under them (nested ops each count it: inclusive);
--         helpers h_time_cuts, h_time_segments, h_idle_gaps, h_idle_spans
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: getvariable, list_contains, ASOF JOIN, FILTER, UNPIVOT and :: casts are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_step_times AS
WITH anchored AS (
    SELECT s.file_id, m.rank, s.step, m.phase, m.phase_index,
           CASE WHEN getvariable('gpu_anchored') THEN m.gpu_start ELSE s.cpu_start END AS start_ns,
           greatest(CASE WHEN getvariable('gpu_anchored') THEN m.gpu_start ELSE s.cpu_end END, m.gpu_end) AS own_end
    FROM t_steps s JOIN t_step_metrics m USING (file_id, step)
    WHERE in_batch(s.file_id)
), windows AS (
    SELECT *, coalesce(lead(start_ns) OVER (PARTITION BY file_id ORDER BY start_ns, step), own_end) AS end_ns
    FROM anchored WHERE start_ns IS NOT NULL
), launched AS (
    SELECT file_id, step,
           count(DISTINCT correlation) FILTER (WHERE launch_ns IS NOT NULL AND NOT graph) AS launches,
           count(DISTINCT correlation) FILTER (WHERE graph) AS graph_launches
    FROM t_ops_core WHERE step IS NOT NULL AND in_batch(file_id) GROUP BY file_id, step
)
SELECT w.file_id, w.rank, w.step, w.phase, w.phase_index, w.start_ns, w.end_ns, w.end_ns - w.start_ns AS step_ns,
       coalesce(l.launches, 0) AS launches, coalesce(l.graph_launches, 0) AS graph_launches
FROM windows w LEFT JOIN launched l USING (file_id, step);

-- What runs on the GPU, as intervals labelled with the part they make: an operation's category, for a
-- collective comm_allreduce or comm_other. delta: +1 where an operation starts, -1 where it ends, 0 where
-- a window or a step's operations start or end (segments are cut there).
CREATE OR REPLACE TEMP TABLE h_time_cuts AS
WITH ops AS (
    SELECT o.file_id, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns, o.launch_ns,
           CASE WHEN k.category = 'allreduce' THEN 'comm_allreduce' ELSE k.category END AS label
    FROM t_ops_core o
    JOIN t_classes k USING (file_id, name_id, kind, variant)
    WHERE o.dur_ns > 0 AND in_batch(o.file_id)
)
SELECT file_id, ts_ns AS t, label, 1 AS delta, launch_ns FROM ops
UNION ALL
SELECT file_id, end_ns, label, -1, NULL FROM ops
UNION ALL
SELECT file_id, unnest([start_ns, end_ns]), NULL, 0, NULL FROM t_step_times WHERE in_batch(file_id)
UNION ALL
SELECT m.file_id, unnest([m.gpu_start, m.gpu_end]), NULL, 0, NULL
FROM t_step_metrics m SEMI JOIN t_step_times t USING (file_id, step)
WHERE m.gpu_start IS NOT NULL AND in_batch(m.file_id);

-- One pass in time order: after each event, how many intervals of each label run, and when the GPU last
-- finished something (last_end: where the current idle gap began). Starts come before ends at the same
-- time, so back-to-back operations leave no gap. A row's segment runs to the next row's time. The eight
-- labels' counts are one running sum of 16-bit fields (a label's count never goes below 0, as starts come
-- first, nor above 65535): one aggregate over the window instead of eight, a third of the time.
CREATE OR REPLACE TEMP TABLE h_time_segments AS
WITH labelled AS (
    SELECT *, list_position(['attention', 'moe_gemm', 'gemm', 'routing', 'memcpy', 'other', 'comm_allreduce',
                             'comm_other'], label) AS field
    FROM h_time_cuts
    WHERE in_batch(file_id)
), swept AS (
    SELECT file_id, t, lead(t) OVER w AS t_next, delta, launch_ns,
           sum(delta) OVER w AS running,
           sum(CASE WHEN field IS NULL THEN 0::HUGEINT ELSE delta::HUGEINT * (1::HUGEINT << (16 * (field - 1))) END)
               OVER w AS packed,
           max(t) FILTER (WHERE delta = -1) OVER w AS last_end
    FROM labelled
    WINDOW w AS (PARTITION BY file_id ORDER BY t, delta DESC, label ROWS UNBOUNDED PRECEDING)
)
SELECT file_id, t, t_next, delta, launch_ns, running,
       ((packed >> 0) & 65535)::BIGINT AS n_attention,
       ((packed >> 16) & 65535)::BIGINT AS n_moe_gemm,
       ((packed >> 32) & 65535)::BIGINT AS n_gemm,
       ((packed >> 48) & 65535)::BIGINT AS n_routing,
       ((packed >> 64) & 65535)::BIGINT AS n_memcpy,
       ((packed >> 80) & 65535)::BIGINT AS n_other,
       ((packed >> 96) & 65535)::BIGINT AS n_comm_allreduce,
       ((packed >> 112) & 65535)::BIGINT AS n_comm_other,
       last_end
FROM swept;

-- Each idle gap, keyed by where it began: whether its next operation was launched only once the GPU was
-- idle (known at the start that ends the gap: the GPU ran nothing just before it), and the host-sync call
-- that was running when it began (the latest to start at or before; it must not have ended before).
CREATE OR REPLACE TEMP TABLE h_idle_gaps AS
WITH gap_ends AS (
    SELECT file_id, last_end AS g0, bool_or(launch_ns >= last_end) AS launched_late
    FROM h_time_segments
    WHERE delta = 1 AND running = 1 AND last_end IS NOT NULL AND in_batch(file_id)
    GROUP BY file_id, last_end
), syncs AS (
    SELECT l.file_id, l.ts_ns, l.ts_ns + l.dur_ns AS end_ns, l.external_id, l.name_id
    FROM launches l JOIN names n USING (file_id, name_id) JOIN t_files USING (file_id)
    WHERE list_contains(getvariable('host_syncs'), n.name) AND in_batch(l.file_id)
)
SELECT g.file_id, g.g0, g.launched_late,
       CASE WHEN s.end_ns >= g.g0 THEN s.ts_ns END AS sync_ts,
       CASE WHEN s.end_ns >= g.g0 THEN s.name_id END AS sync_name_id
FROM gap_ends g ASOF LEFT JOIN syncs s ON s.file_id = g.file_id AND s.ts_ns <= g.g0;

-- The idle moments inside step windows, with their part and the sync call that caused them.
CREATE OR REPLACE TEMP TABLE h_idle_spans AS
SELECT w.file_id, w.step, s.t AS s, s.t_next AS e, g.sync_ts, g.sync_name_id,
       CASE WHEN g.sync_ts IS NOT NULL THEN 'idle_sync'
            WHEN m.gpu_start IS NULL THEN 'idle_other'
            WHEN s.t < m.gpu_start THEN 'idle_before'
            WHEN s.t >= m.gpu_end THEN 'idle_after'
            WHEN g.launched_late THEN 'idle_launch'
            ELSE 'idle_other' END AS part
FROM h_time_segments s
ASOF JOIN t_step_times w ON w.file_id = s.file_id AND s.t >= w.start_ns
JOIN t_step_metrics m ON m.file_id = w.file_id AND m.step = w.step
LEFT JOIN h_idle_gaps g ON g.file_id = s.file_id AND g.g0 = s.last_end
WHERE s.running = 0 AND s.t_next > s.t AND s.t < w.end_ns AND in_batch(s.file_id);

CREATE OR REPLACE TEMP TABLE t_step_parts_by_category AS
WITH busy AS (
    SELECT s.file_id, w.step, s.t_next - s.t AS len,
           (n_attention > 0)::INT + (n_moe_gemm > 0)::INT + (n_gemm > 0)::INT + (n_routing > 0)::INT
               + (n_memcpy > 0)::INT + (n_other > 0)::INT AS work,
           (n_comm_allreduce > 0)::INT + (n_comm_other > 0)::INT AS comm,
           s.*
    FROM h_time_segments s
    ASOF JOIN t_step_times w ON w.file_id = s.file_id AND s.t >= w.start_ns
    WHERE s.running > 0 AND s.t_next > s.t AND s.t < w.end_ns AND in_batch(s.file_id)
), shares AS (
    -- each segment's length shared among what runs in it: the work categories, else the collectives; in
    -- sixtieths of a nanosecond (1 to 6 categories, 1 or 2 collectives divide 60), so the sums are exact
    -- integers whatever order they are added in
    SELECT file_id, step,
           sum(CASE WHEN work > 0 AND n_attention > 0 THEN len * 60 // work ELSE 0 END) AS attention,
           sum(CASE WHEN work > 0 AND n_moe_gemm > 0 THEN len * 60 // work ELSE 0 END) AS moe_gemm,
           sum(CASE WHEN work > 0 AND n_gemm > 0 THEN len * 60 // work ELSE 0 END) AS gemm,
           sum(CASE WHEN work > 0 AND n_routing > 0 THEN len * 60 // work ELSE 0 END) AS routing,
           sum(CASE WHEN work > 0 AND n_memcpy > 0 THEN len * 60 // work ELSE 0 END) AS memcpy,
           sum(CASE WHEN work > 0 AND n_other > 0 THEN len * 60 // work ELSE 0 END) AS other,
           sum(CASE WHEN work = 0 AND n_comm_allreduce > 0 THEN len * 60 // comm ELSE 0 END) AS comm_allreduce,
           sum(CASE WHEN work = 0 AND n_comm_other > 0 THEN len * 60 // comm ELSE 0 END) AS comm_other
    FROM busy GROUP BY file_id, step
), parts AS (
    SELECT file_id, step, part, ns FROM (UNPIVOT shares ON COLUMNS(* EXCLUDE (file_id, step)) INTO NAME part VALUE ns)
    UNION ALL
    SELECT file_id, step, part, sum(e - s) * 60 FROM h_idle_spans WHERE in_batch(file_id) GROUP BY ALL
)
SELECT t.file_id, t.rank, t.step, t.phase, t.phase_index, p.part, ((sum(p.ns) + 30) // 60)::BIGINT AS ns
FROM parts p JOIN t_step_times t USING (file_id, step)
WHERE p.ns > 0
GROUP BY ALL;

CREATE OR REPLACE TEMP TABLE t_host_syncs AS
WITH calls AS (
    SELECT l.file_id, w.step, l.ts_ns, l.dur_ns, l.name_id, l.external_id, n.name AS call
    FROM launches l
    JOIN names n USING (file_id, name_id)
    ASOF JOIN t_step_times w ON w.file_id = l.file_id AND l.ts_ns >= w.start_ns
    WHERE list_contains(getvariable('host_syncs'), n.name) AND l.ts_ns < w.end_ns AND in_batch(l.file_id)
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
