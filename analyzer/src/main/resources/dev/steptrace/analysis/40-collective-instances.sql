-- Stage 40, collective instances (rank-local).
-- Every communication kernel (category allreduce or comm_other) in a step is an instance: its type, its
-- position k among the step's collectives of that type, its message size when the trace records it
-- (from the kernel's own record, else its CPU op's). (phase, step of the phase, type, k) is what matches
-- an instance across ranks: that matching, with transfer and wait, is cross-rank.sql's (stages 42-43).
-- Reads:  comm_meta (store); t_files, t_ops_core, t_classes, t_step_metrics
-- Writes: t_rank_collectives(file_id, rank, phase, phase_index, step, type, ts_ns, end_ns, dur_ns, dtype,
--         in_nelems, out_nelems, group_size, k, dtype_bytes, msg_bytes); helper h_comm_sizes
-- Portability: any_value, USING joins and :: casts are DuckDB's shorthand (Spark SQL has any_value and
-- USING; a cast is CAST(x AS INT)); the collective_category macro (macros.sql) is DuckDB's.

CREATE OR REPLACE TEMP TABLE h_comm_sizes AS
SELECT file_id, source, correlation, external_id,
       any_value(collective) AS collective, any_value(dtype) AS dtype,
       any_value(in_nelems) AS in_nelems, any_value(out_nelems) AS out_nelems,
       any_value(group_size) AS group_size
FROM comm_meta JOIN t_files USING (file_id)
GROUP BY file_id, source, correlation, external_id;

CREATE OR REPLACE TEMP TABLE t_rank_collectives AS
WITH inst AS (
    -- Kernels of a type that start together (on different streams) are numbered by stream and launch:
    -- every analysis of a store numbers them, and so matches them across ranks, alike.
    SELECT *, (row_number() OVER (PARTITION BY file_id, step, type
                                  ORDER BY ts_ns, stream, correlation, dur_ns) - 1)::INTEGER AS k
    FROM (SELECT o.file_id, o.step,
                 CASE WHEN k.category = 'allreduce' THEN 'allreduce' ELSE k.subcategory END AS type,
                 o.ts_ns, o.dur_ns, o.stream, o.correlation, o.external_id
          FROM t_ops_core o
          JOIN t_classes k USING (file_id, name_id, kind, variant)
          WHERE collective_category(k.category))
), located AS (
    -- Joined after numbering: the window then carries a few numbers per instance, not strings.
    SELECT i.file_id, m.rank, m.phase, m.phase_index, i.step, i.type, i.ts_ns, i.ts_ns + i.dur_ns AS end_ns,
           i.dur_ns,
           coalesce(ck.dtype, cc.dtype) AS dtype,
           coalesce(ck.in_nelems, cc.in_nelems) AS in_nelems,
           coalesce(ck.out_nelems, cc.out_nelems) AS out_nelems,
           coalesce(ck.group_size, cc.group_size) AS group_size,
           i.k
    FROM inst i
    JOIN t_step_metrics m USING (file_id, step)
    LEFT JOIN h_comm_sizes ck ON ck.source = 'kernel' AND ck.file_id = i.file_id
         AND ck.correlation = i.correlation
    LEFT JOIN h_comm_sizes cc ON cc.source = 'cpu_op' AND cc.file_id = i.file_id
         AND cc.external_id = i.external_id
), typed AS (
    SELECT *,
           CASE lower(dtype)
               WHEN 'float' THEN 4 WHEN 'float32' THEN 4 WHEN 'int' THEN 4 WHEN 'int32' THEN 4
               WHEN 'bfloat16' THEN 2 WHEN 'half' THEN 2 WHEN 'float16' THEN 2 WHEN 'short' THEN 2
               WHEN 'double' THEN 8 WHEN 'float64' THEN 8 WHEN 'long' THEN 8 WHEN 'int64' THEN 8
               WHEN 'byte' THEN 1 WHEN 'char' THEN 1 WHEN 'bool' THEN 1 WHEN 'int8' THEN 1
               WHEN 'uint8' THEN 1
               ELSE CASE WHEN lower(dtype) LIKE 'float8%' THEN 1 END
           END AS dtype_bytes
    FROM located
), sized AS (
    SELECT *,
           dtype_bytes * CASE WHEN type = 'all_gather' THEN out_nelems ELSE coalesce(in_nelems, out_nelems) END
               AS msg_bytes
    FROM typed
)
SELECT * FROM sized;
