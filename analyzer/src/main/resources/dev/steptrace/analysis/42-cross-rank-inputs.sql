-- Stage 42, the cross-rank stage's inputs: the capture's rank-local tables as the views cross-rank.sql
-- reads (the same views Spark makes of the dataset, docs/spark.md), one capture named 'capture'.
-- cross-rank.sql then runs as it is, and stage 43 takes its results back.
-- Reads:  t_files, t_rank_collectives, h_collective_causes, t_step_metrics, t_step_categories
-- Writes: views rank_files(capture, rank, file_id), rank_collectives(capture, rank, file_id, step, phase,
--         phase_index, type, k, ts_ns, dur_ns, dtype, group_size, msg_bytes, after_category),
--         rank_step_metrics(capture, rank, file_id, step, phase, phase_index, kernel_ns),
--         rank_step_categories(capture, rank, file_id, step, phase, category, subcategory, ns, calls)
-- Portability: USING joins are DuckDB's shorthand.

CREATE OR REPLACE TEMP VIEW rank_files AS
SELECT 'capture' AS capture, rank, file_id FROM t_files;

CREATE OR REPLACE TEMP VIEW rank_collectives AS
SELECT 'capture' AS capture, c.rank, c.file_id, c.step, c.phase, c.phase_index, c.type, c.k, c.ts_ns, c.dur_ns,
       c.dtype, c.group_size, c.msg_bytes, h.after_category
FROM t_rank_collectives c LEFT JOIN h_collective_causes h USING (file_id, step, ts_ns);

CREATE OR REPLACE TEMP VIEW rank_step_metrics AS
SELECT 'capture' AS capture, rank, file_id, step, phase, phase_index, kernel_ns FROM t_step_metrics;

CREATE OR REPLACE TEMP VIEW rank_step_categories AS
SELECT 'capture' AS capture, rank, file_id, step, phase, category, subcategory, ns, calls FROM t_step_categories;
