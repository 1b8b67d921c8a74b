-- What says a capture is an MoE model, beside the time its kernels got as one (rule moe_not_told_apart of
-- docs/warnings.md): a row 'moe_time' with the kernel time and calls classified MoE GEMMs or routing (0 when none);
-- a row 'all_to_all' per kernel name of all-to-all collectives (expert-parallel dispatch and combine); a row
-- 'context' per CPU op, annotation or nn.Module name around launches that names experts or MoE.
-- Parameters: capture_id, analysis_key
-- Reads:   step_kernels, kernel_classes, kernel_contexts
-- Returns: evidence, name, ns, calls; in that order of evidence, then most time first
-- Portability: getvariable, regexp_matches, unnest and USING joins are DuckDB's.
WITH classed AS (
    SELECT s.name, s.ns, s.calls, k.category, k.subcategory
    FROM step_kernels s JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
    WHERE s.capture_id = getvariable('capture_id') AND s.analysis_key = getvariable('analysis_key')
), around AS (
    SELECT unnest([c.op, c.annotation, c.module]) AS name, c.ns, c.calls
    FROM kernel_contexts c
    WHERE c.capture_id = getvariable('capture_id') AND c.analysis_key = getvariable('analysis_key')
), rows AS (
    SELECT 1 AS ord, 'moe_time' AS evidence, NULL AS name, coalesce(sum(ns), 0) AS ns, coalesce(sum(calls), 0) AS calls
    FROM classed WHERE category IN ('moe_gemm', 'routing')
    UNION ALL
    SELECT 2, 'all_to_all', name, sum(ns), sum(calls) FROM classed WHERE subcategory = 'all_to_all' GROUP BY name
    UNION ALL
    SELECT 3, 'context', name, sum(ns), sum(calls) FROM around
    WHERE name IS NOT NULL AND regexp_matches(lower(name), 'moe|expert') GROUP BY name
)
SELECT evidence, name, ns, calls FROM rows ORDER BY ord, ns DESC, name;
