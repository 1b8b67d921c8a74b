-- Stage 80, file checks (rank-local): per file of the capture, what the capture-quality rules read
-- (docs/warnings.md) that no other analysis table keeps, so that the rules run over kept tables alone
-- (CaptureRules; Spark's report step has no operations, docs/spark.md): its GPU operations and those in
-- no step, with their time (ops_outside_steps); its CUDA graph launches and those whose replay has no
-- per-kernel records: none at all, or only the one whole-replay row of a capture taken without them (Nsight
-- Systems' --cuda-graph-trace=graph): in a file of a format whose importer writes such rows, a kernel row with
-- a graph id and no graph node id (graph_without_kernels);
-- why its NVTX ranges were not taken as steps (nvtx_ranges_not_steps, at most one note per file).
-- Parameters (DuckDB variables): graph_launches (the names of CUDA graph launch calls), whole_graph_formats
--         (the format ids whose kernel rows with a graph id and no graph node id are whole graph replays:
--         Importer.Capability.WHOLE_GRAPH_ROWS)
-- Reads:  launches, gpu_ops, names, files (store); t_files, t_ops_core, t_step_notes
-- Writes: t_file_checks(file_id, rank, ops, ops_ns, outside_ops, outside_ns, graph_launches,
--         graph_launches_without_kernels, nvtx_note)
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: getvariable, list_contains, FILTER, SEMI JOIN and :: casts are DuckDB's.

-- in_batch on each input that holds every operation or launch: DuckDB carries a batch's filter into neither
-- side of a join by itself, and each batch's run would read every file's rows (the notes, one per file at
-- most, are joined to the batch's files alone).
CREATE OR REPLACE TEMP TABLE t_file_checks AS
WITH ops AS (
    SELECT file_id, count(*) AS ops, sum(dur_ns) AS ops_ns, count(*) FILTER (WHERE step IS NULL) AS outside_ops,
           sum(dur_ns) FILTER (WHERE step IS NULL) AS outside_ns
    FROM t_ops_core WHERE in_batch(file_id) GROUP BY file_id
), graph AS (
    SELECT l.file_id, l.correlation FROM launches l JOIN t_files USING (file_id)
    JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id
    WHERE list_contains(getvariable('graph_launches'), n.name) AND in_batch(l.file_id)
), replayed AS (
    -- The operations are matched to the graph launches first: a NOT EXISTS per launch would hash every
    -- operation of the capture to probe it.
    SELECT DISTINCT g.file_id, g.correlation FROM gpu_ops g JOIN files f USING (file_id)
    SEMI JOIN graph l ON l.file_id = g.file_id AND l.correlation = g.correlation
    WHERE NOT (list_contains(getvariable('whole_graph_formats'), f.format) AND g.graph_id IS NOT NULL
               AND g.graph_node_id IS NULL) AND in_batch(g.file_id)
), graph_counts AS (
    SELECT l.file_id, count(*) AS graph_launches, count(*) FILTER (WHERE r.file_id IS NULL) AS without_kernels
    FROM graph l LEFT JOIN replayed r ON r.file_id = l.file_id AND r.correlation = l.correlation
    GROUP BY l.file_id
), notes AS (
    SELECT file_id, min(message) AS nvtx_note FROM t_step_notes WHERE code = 'nvtx_ranges_not_steps' GROUP BY file_id
)
SELECT t.file_id, t.rank, coalesce(o.ops, 0)::BIGINT AS ops, coalesce(o.ops_ns, 0)::BIGINT AS ops_ns,
       coalesce(o.outside_ops, 0)::BIGINT AS outside_ops, coalesce(o.outside_ns, 0)::BIGINT AS outside_ns,
       coalesce(g.graph_launches, 0)::BIGINT AS graph_launches,
       coalesce(g.without_kernels, 0)::BIGINT AS graph_launches_without_kernels, n.nvtx_note
FROM t_files t
LEFT JOIN ops o USING (file_id)
LEFT JOIN graph_counts g USING (file_id)
LEFT JOIN notes n USING (file_id)
WHERE in_batch(t.file_id);
