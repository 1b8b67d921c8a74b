-- The cross-rank stage (docs/spark.md, docs/architecture.md "Analysis stages"): what needs every rank of a
-- capture, over the rank-local tables of one analysis, read as views with the columns `capture` and `rank`:
--   rank_files(capture, rank, file_id), rank_collectives(capture, rank, file_id, step, phase, phase_index,
--   type, k, ts_ns, dur_ns, dtype, group_size, msg_bytes, after_category), rank_step_metrics(capture, rank,
--   file_id, step, phase, phase_index, kernel_ns), rank_step_categories(capture, rank, file_id, step, phase,
--   category, subcategory, ns, calls).
-- The CLI makes them of its analysis's temp tables (stage 42), Spark of the dataset's rank-local tables.
-- Each `-- view: NAME` block is one SELECT, run as CREATE OR REPLACE TEMPORARY VIEW NAME AS ...; written in
-- SQL that Spark and DuckDB both run (no QUALIFY, FILTER, :: casts or GROUP BY ALL), in the order given.
-- A file is (capture, rank, file_id): file ids are unique only within the store that made them.

-- view: collective_waits
-- Every rank's collective instances matched across the capture's ranks by (phase, phase_index, type, k)
-- (docs/reports.md): the fastest rank's duration is the transfer, the rest of each rank's duration its
-- wait; both NULL where not every rank of the capture has the instance. Instances are numbered in
-- (phase, phase_index, type, k) order.
WITH capture_ranks AS (
    SELECT capture, count(DISTINCT rank) AS ranks FROM rank_files GROUP BY capture
), matched AS (
    SELECT capture, phase, phase_index, type, k, min(dur_ns) AS transfer_ns, count(DISTINCT rank) AS ranks
    FROM rank_collectives
    GROUP BY capture, phase, phase_index, type, k
), numbered AS (
    SELECT m.capture, m.phase, m.phase_index, m.type, m.k, m.transfer_ns, m.ranks = r.ranks AS complete,
           CAST(row_number() OVER (PARTITION BY m.capture ORDER BY m.phase, m.phase_index, m.type, m.k) - 1 AS INT)
               AS instance
    FROM matched m JOIN capture_ranks r ON r.capture = m.capture
)
SELECT i.capture, n.instance, i.rank, i.file_id, i.step, i.phase, i.phase_index, i.type, i.k, i.ts_ns, i.dur_ns,
       i.dtype, i.group_size, i.msg_bytes,
       CASE WHEN n.complete THEN n.transfer_ns END AS transfer_ns,
       CASE WHEN n.complete THEN i.dur_ns - n.transfer_ns END AS wait_ns,
       i.after_category
FROM rank_collectives i
JOIN numbered n ON n.capture = i.capture AND n.phase = i.phase AND n.phase_index = i.phase_index
     AND n.type = i.type AND n.k = i.k;

-- view: step_waits
-- Each step's time spent waiting for other ranks (its collectives' waits summed, 0 where none was
-- matched) and its compute time (kernel time without them). Kernel time counts a rank's spinning inside
-- collectives as work, so the rank everyone waits for has the least of it; compute time ranks the ranks
-- by the work they did.
SELECT m.capture, m.rank, m.file_id, m.step, m.phase, m.phase_index,
       CAST(coalesce(w.wait_ns, 0) AS BIGINT) AS wait_ns,
       CAST(m.kernel_ns - coalesce(w.wait_ns, 0) AS BIGINT) AS compute_ns
FROM rank_step_metrics m
LEFT JOIN (SELECT capture, rank, file_id, step, sum(wait_ns) AS wait_ns FROM collective_waits
           GROUP BY capture, rank, file_id, step) w
    ON w.capture = m.capture AND w.rank = m.rank AND w.file_id = m.file_id AND w.step = m.step;

-- view: collective_arrivals
-- Per instance matched on every rank: the rank that arrived last (the shortest kernel; ties: the lowest
-- rank), how much later than the next one, the other ranks' waits for it, and what it was busy with
-- before it arrived (its after_category).
WITH ordered AS (
    SELECT capture, instance, phase, phase_index, type, k, rank, file_id, step, ts_ns, dur_ns, wait_ns,
           after_category,
           row_number() OVER (PARTITION BY capture, phase, phase_index, type, k ORDER BY dur_ns, rank) AS nth
    FROM collective_waits WHERE wait_ns IS NOT NULL
)
SELECT capture, min(instance) AS instance, phase, phase_index, type, k, CAST(count(*) AS INT) AS ranks,
       min(CASE WHEN nth = 1 THEN rank END) AS last_rank,
       min(CASE WHEN nth = 1 THEN file_id END) AS last_file_id,
       min(CASE WHEN nth = 1 THEN step END) AS last_step,
       min(CASE WHEN nth = 1 THEN ts_ns END) AS last_ts_ns,
       min(dur_ns) AS transfer_ns,
       coalesce(min(CASE WHEN nth = 2 THEN dur_ns END) - min(dur_ns), 0) AS lateness_ns,
       CAST(sum(wait_ns) AS BIGINT) AS wait_ns,
       min(CASE WHEN nth = 1 THEN after_category END) AS after_category
FROM ordered
GROUP BY capture, phase, phase_index, type, k;

-- view: phase_categories
-- A category's ms and calls per step of a phase (report.json's figure): each rank's mean over its steps
-- of the phase, then the mean over the ranks with steps in the phase. For fleet queries over many captures.
WITH rank_steps AS (
    SELECT capture, rank, phase, count(*) AS steps
    FROM rank_step_metrics WHERE rank IS NOT NULL
    GROUP BY capture, rank, phase
), phase_ranks AS (
    SELECT capture, phase, count(*) AS ranks FROM rank_steps GROUP BY capture, phase
), rank_categories AS (
    SELECT capture, rank, phase, category, sum(ns) AS ns, sum(calls) AS calls
    FROM rank_step_categories WHERE rank IS NOT NULL
    GROUP BY capture, rank, phase, category
)
SELECT c.capture, c.phase, c.category, p.ranks,
       sum(c.ns / 1e6 / s.steps) / p.ranks AS ms_per_step,
       sum(c.calls / s.steps) / p.ranks AS calls_per_step
FROM rank_categories c
JOIN rank_steps s ON s.capture = c.capture AND s.rank = c.rank AND s.phase = c.phase
JOIN phase_ranks p ON p.capture = c.capture AND p.phase = c.phase
GROUP BY c.capture, c.phase, c.category, p.ranks;
