-- Stage 43, the cross-rank stage's results (cross-rank.sql, run over stage 42's views) as the analysis's
-- temp tables, then the views dropped: the output views bear the names of store tables, which they would
-- hide on this connection.
-- Reads:  t_rank_collectives, t_step_metrics, views collective_waits, step_waits, collective_arrivals
-- Writes: t_collectives (t_rank_collectives with instance, transfer_ns, wait_ns, after_category),
--         t_step_waits(file_id, rank, step, phase, phase_index, wait_ns, compute_ns),
--         t_collective_arrivals(instance, phase, phase_index, type, k, ranks, last_rank, last_file_id,
--         last_step, last_ts_ns, transfer_ns, lateness_ns, wait_ns, after_category);
--         helper h_collective_waits
-- Portability: USING joins and DROP VIEW IF EXISTS are DuckDB's shorthand.

-- collective_waits, which the other two views read too, made once: a view is computed again by every
-- query that reads it (three times its cost, docs/performance.md, "The analysis after ingest"). The
-- view then reads the table, for the views that read it.
CREATE OR REPLACE TEMP TABLE h_collective_waits AS SELECT * FROM collective_waits;

CREATE OR REPLACE TEMP VIEW collective_waits AS SELECT * FROM h_collective_waits;

CREATE OR REPLACE TEMP TABLE t_collectives AS
SELECT c.*, w.instance, w.transfer_ns, w.wait_ns, w.after_category
FROM t_rank_collectives c JOIN collective_waits w USING (file_id, step, type, k);

CREATE OR REPLACE TEMP TABLE t_step_waits AS
SELECT m.file_id, m.rank, m.step, m.phase, m.phase_index, w.wait_ns, w.compute_ns
FROM t_step_metrics m JOIN step_waits w USING (file_id, step);

CREATE OR REPLACE TEMP TABLE t_collective_arrivals AS
SELECT instance, phase, phase_index, type, k, ranks, last_rank, last_file_id, last_step, last_ts_ns, transfer_ns,
       lateness_ns, wait_ns, after_category
FROM collective_arrivals;

DROP VIEW IF EXISTS phase_categories;
DROP VIEW IF EXISTS collective_arrivals;
DROP VIEW IF EXISTS step_waits;
DROP VIEW IF EXISTS collective_waits;
DROP VIEW IF EXISTS rank_step_categories;
DROP VIEW IF EXISTS rank_step_metrics;
DROP VIEW IF EXISTS rank_collectives;
DROP VIEW IF EXISTS rank_files;
