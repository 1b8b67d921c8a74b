-- Stage 23, MoE blocks (rank-local): a kernel whose name a context: moe_block rule matches (torch's
-- softmax, top-k and sort kernels: t_block_names) takes that rule's class when the first GEMM (dense or
-- MoE) to start after it on its stream, in its step, is an MoE GEMM: it runs between the router GEMM and
-- the experts. Elsewhere (a dense model, a sampler) the name's own class stands. An operation a launch rule
-- classified (already in t_refined) keeps that class, and a GEMM it made an MoE GEMM counts as one here.
-- Reads:  names (store); t_ops_core, t_classes, t_block_names, t_refined, t_files
-- Writes: rows of t_refined
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: ASOF JOIN and USING joins are DuckDB's.

INSERT INTO t_refined
WITH cand AS (
    SELECT o.file_id, o.stream, o.ts_ns, o.name_id, o.kind, o.step, b.category, b.subcategory, b.rule_id
    FROM t_ops_core o
    JOIN t_classes k USING (file_id, name_id, kind)
    JOIN names n USING (file_id, name_id)
    JOIN t_block_names b ON b.name = n.name
    WHERE k.variant = 0 AND o.kind = 'kernel' AND o.step IS NOT NULL AND in_batch(o.file_id)
      AND NOT EXISTS (SELECT 1 FROM t_refined r WHERE r.file_id = o.file_id AND r.stream IS NOT DISTINCT FROM o.stream
                      AND r.ts_ns = o.ts_ns AND r.name_id = o.name_id)
), gemms AS (
    SELECT o.file_id, o.stream, o.ts_ns, o.step, coalesce(r.category, k.category) = 'moe_gemm' AS moe
    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind)
    LEFT JOIN t_refined r ON r.file_id = o.file_id AND r.stream IS NOT DISTINCT FROM o.stream AND r.ts_ns = o.ts_ns
                         AND r.name_id = o.name_id
    WHERE k.variant = 0 AND coalesce(r.category, k.category) IN ('gemm', 'moe_gemm') AND o.step IS NOT NULL
      AND in_batch(o.file_id)
)
SELECT c.file_id, c.stream, c.ts_ns, c.name_id, c.kind, c.category, c.subcategory, c.rule_id
FROM cand c ASOF JOIN gemms g
    ON c.file_id = g.file_id AND c.stream IS NOT DISTINCT FROM g.stream AND c.ts_ns < g.ts_ns
WHERE g.moe AND g.step = c.step;
