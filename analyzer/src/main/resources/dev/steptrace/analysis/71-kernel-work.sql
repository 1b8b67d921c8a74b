-- Stage 71, kernel work (rank-local but for the collectives' group size; docs/roofline.md): every kernel
-- in a step with known work, from the trace alone. An op's work (t_shape_work) is shared among the kernels
-- it launched in proportion to their time (a split-K GEMM's two kernels share its FLOPs; the memsets an op
-- issues get none; kernels of no time share it equally); a collective's bytes are its bus traffic: message
-- bytes x 2(n-1)/n for an all-reduce, x (n-1)/n for all-gather, reduce-scatter and all-to-all, x 1
-- otherwise, n the group size (else the capture's ranks).
-- Reads:  t_ops_core, t_classes, t_launch_ops, t_shape_work, t_collectives, t_files
-- Writes: t_kernel_work(file_id, step, name_id, kind, category, ts_ns, dur_ns, external_id, family,
--         precision, flops, bytes)
-- Portability: QUALIFY, named windows, UNION ALL BY NAME, USING joins, :: casts and the collective_category
-- macro (macros.sql) are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_kernel_work AS
WITH op_kernels AS (
    SELECT o.file_id, o.step, o.name_id, o.kind, k.category, o.ts_ns, o.dur_ns, o.external_id, w.family,
           w.precision, w.flops, w.bytes, sum(o.dur_ns) OVER op AS op_ns, count(*) OVER op AS op_n
    FROM t_ops_core o
    JOIN t_classes k USING (file_id, name_id, kind, variant)
    JOIN t_launch_ops l ON l.file_id = o.file_id AND l.external_id = o.external_id
    JOIN t_shape_work w ON w.file_id = l.file_id AND w.op_name_id = l.name_id AND w.shape_id = l.shape_id
    WHERE o.kind = 'kernel'
    WINDOW op AS (PARTITION BY o.file_id, o.external_id)
), shared AS (
    SELECT file_id, step, name_id, kind, category, ts_ns, dur_ns, external_id, family, precision,
           flops * share AS flops, bytes * share AS bytes
    FROM (SELECT *, CASE WHEN op_ns > 0 THEN dur_ns / op_ns ELSE 1.0 / op_n END AS share FROM op_kernels)
    WHERE step IS NOT NULL
), comm AS (
    SELECT c.file_id, c.step, o.name_id, o.kind, k.category, c.ts_ns, c.dur_ns, o.external_id,
           'collective' AS family, NULL AS precision,
           NULL::DOUBLE AS flops,
           c.msg_bytes * CASE
               WHEN c.type = 'allreduce' THEN 2.0 * (n - 1) / n
               WHEN c.type IN ('all_gather', 'reduce_scatter', 'all_to_all') THEN (n - 1)::DOUBLE / n
               ELSE 1.0 END AS bytes
    FROM (SELECT *, coalesce(group_size, (SELECT count(DISTINCT rank) FROM t_files)) AS n
          FROM t_collectives WHERE msg_bytes IS NOT NULL) c
    JOIN t_ops_core o ON o.file_id = c.file_id AND o.ts_ns = c.ts_ns AND o.dur_ns = c.dur_ns AND o.step = c.step
    JOIN t_classes k ON k.file_id = o.file_id AND k.name_id = o.name_id AND k.kind = o.kind
         AND k.variant = o.variant AND collective_category(k.category)
    QUALIFY row_number() OVER (PARTITION BY c.file_id, c.ts_ns, c.dur_ns ORDER BY o.name_id) = 1
)
SELECT * FROM shared UNION ALL BY NAME SELECT * FROM comm;
