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
-- This stage makes the windows and the host-sync calls; StepTimeParts then cuts the windows into their parts, in one
-- pass per batch of files over the operations in time order, and counts the CPU ops under the idle time; stage 66
-- takes the host syncs from the idle spans it writes.
-- Parameters (DuckDB variables): gpu_anchored (steps start at their first GPU operation), host_syncs (the
--             runtime calls that block the CPU until the GPU catches up, a list)
-- Reads:  launches, names (store); t_steps, t_step_metrics, t_ops_core, t_files (StepTimeParts: cpu_ops, t_classes)
-- Writes: t_step_times(file_id, rank, step, phase, phase_index, start_ns, end_ns, step_ns, launches,
--             graph_launches): the window, and the step's eager launch calls and graph launches (of
--             operations attributed to it);
--         t_step_parts_by_category(file_id, rank, step, phase, phase_index, part, ns): the parts, summing
--             to step_ns (each rounded to a nanosecond: within a few ns of it), exposed communication by
--             kind (kept as step_time_base; the view step_time_parts splits off its waits); made empty here,
--             filled by StepTimeParts;
--         h_idle_spans(file_id, step, s, e, sync_ts, sync_name_id, part): the idle moments inside step windows,
--             their part and the host-sync call that caused them (its start and name); made empty here, filled
--             by StepTimeParts;
--         t_idle_cpu_ops(file_id, rank, phase, kind, name_id, calls, idle_ns): CPU ops (and Python
--             functions, where kept) that ran while the GPU was idle inside steps, with the idle time
--             under them (nested ops each count it: inclusive); made empty here, filled by StepTimeParts;
--         h_sync_calls(file_id, ts_ns, dur_ns, end_ns, name_id, external_id, call): the host-sync calls
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: getvariable, list_contains, FILTER and :: casts are DuckDB's.

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

CREATE OR REPLACE TEMP TABLE h_sync_calls AS
SELECT l.file_id, l.ts_ns, l.dur_ns, l.ts_ns + l.dur_ns AS end_ns, l.name_id, l.external_id, n.name AS call
FROM launches l JOIN names n USING (file_id, name_id) JOIN t_files USING (file_id)
WHERE list_contains(getvariable('host_syncs'), n.name) AND in_batch(l.file_id);

CREATE OR REPLACE TEMP TABLE t_step_parts_by_category (file_id INTEGER, rank INTEGER, step INTEGER, phase VARCHAR,
                                                       phase_index INTEGER, part VARCHAR, ns BIGINT);

CREATE OR REPLACE TEMP TABLE h_idle_spans (file_id INTEGER, step INTEGER, s BIGINT, e BIGINT, sync_ts BIGINT,
                                           sync_name_id INTEGER, part VARCHAR);

CREATE OR REPLACE TEMP TABLE t_idle_cpu_ops (file_id INTEGER, rank INTEGER, phase VARCHAR, kind VARCHAR, name_id INTEGER,
                                             calls BIGINT, idle_ns BIGINT);
