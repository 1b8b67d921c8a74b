-- Stage 70, launching ops (rank-local; docs/roofline.md): the CPU ops that launched GPU work, and the
-- distinct (op, shapes) calls whose work a model in Java (WorkModels) computes into t_shape_work.
-- Parameters (DuckDB variables): work_ops, the op names WorkModels has a model for (a list)
-- Reads:  cpu_ops, names, op_shapes (store); t_ops_core, t_classes, t_files
-- Writes: t_launch_ops(file_id, external_id, name_id, shape_id): one row per op that has recorded shapes
--             or launched a collective (an external id two ops share is left out: it cannot say which
--             launched what). Only those rows are read: the calls' work (here and stage 71) and the names
--             of the ops that launched the collectives (kernel_work, stage 90);
--         t_shape_calls(file_id, name_id, name, shape_id, input_dims, input_types, concrete_inputs): the
--             distinct calls of work_ops with recorded shapes;
--         t_shape_work(file_id, op_name_id, shape_id, family, precision, flops, bytes), empty: KernelWork
--             fills it
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: getvariable, list_contains, any_value, SEMI JOIN, USING joins and the collective_category
-- macro (macros.sql) are DuckDB's.

-- Grouped by external id, not counted by a window, and semi-joined to the operations as they are
-- (duplicates change nothing in a semi join): each is one hash pass over the rows, where a DISTINCT
-- first and a window after were two more. The external ids are chosen before the GROUP BY, so every op
-- of a chosen id is still counted; in a trace without shapes (vLLM records none by default) that
-- leaves the collectives' few, not a row per op (docs/performance.md, "The analysis after ingest").
-- in_batch on each input: DuckDB carries a batch's filter into neither side of the UNION nor the SEMI JOIN's
-- subquery by itself, and each batch's run would read every file's rows; t_files too, since a batch is a range
-- of file ids (another capture's files may fall in it) and one batch sets none (every file of the store).
CREATE OR REPLACE TEMP TABLE t_launch_ops AS
WITH wanted AS (
    SELECT file_id, external_id FROM cpu_ops SEMI JOIN t_files USING (file_id)
    WHERE kind = 'cpu_op' AND shape_id IS NOT NULL AND in_batch(file_id)
    UNION
    SELECT o.file_id, o.external_id
    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind, variant)
    WHERE collective_category(k.category) AND in_batch(o.file_id)
)
SELECT c.file_id, c.external_id, any_value(c.name_id) AS name_id, any_value(c.shape_id) AS shape_id
FROM cpu_ops c
SEMI JOIN wanted w ON w.file_id = c.file_id AND w.external_id = c.external_id
SEMI JOIN (SELECT file_id, external_id FROM t_ops_core WHERE in_batch(file_id)) o ON o.file_id = c.file_id AND o.external_id = c.external_id
WHERE c.kind = 'cpu_op' AND in_batch(c.file_id)
GROUP BY c.file_id, c.external_id
HAVING count(*) = 1;

CREATE OR REPLACE TEMP TABLE t_shape_calls AS
SELECT DISTINCT l.file_id, l.name_id, n.name, l.shape_id, p.input_dims, p.input_types, p.concrete_inputs
FROM t_launch_ops l
JOIN names n USING (file_id, name_id)
JOIN op_shapes p USING (file_id, shape_id)
WHERE list_contains(getvariable('work_ops'), n.name);

CREATE OR REPLACE TEMP TABLE t_shape_work (file_id INTEGER, op_name_id INTEGER, shape_id INTEGER,
    family VARCHAR, precision VARCHAR, flops DOUBLE, bytes DOUBLE);
