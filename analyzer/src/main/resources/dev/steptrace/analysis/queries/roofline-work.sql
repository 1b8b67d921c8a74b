-- The roofline's work (docs/roofline.md): per phase, rank, file, kernel and category, the FLOPs and bytes of its
-- calls with known work and the time they took, and each call's least times under its file's GPU peaks (compute
-- at its precision, memory, or the link for a collective), the largest of them its bound, summed. RooflineSummary
-- adds them up per category and per kernel, per step of each rank.
-- Parameters: capture_id, analysis_key; peak_file_ids (the capture's file ids) and, aligned with them, the peaks
--          of each file's GPU: bf16_tflops, fp16_tflops, fp8_tflops, int8_tops, hbm_gbps, link_gbps (one direction),
--          NULL where unknown (lists)
-- Reads:   kernel_work
-- Returns: phase, rank, file_id, name, category, flops, flops_ns (time of the calls with known FLOPs), bytes,
--          bytes_ns, flops_both and bytes_both (of the calls with both known), compute_ns, memory_ns, link_ns,
--          bound_ns, bound_dur_ns (time of the calls with a bound), dur_ns
-- Portability: getvariable, unnest of parallel lists and GROUP BY ALL are DuckDB's.
WITH peaks AS (
    -- Cast: a list of NULLs alone (no file's GPU has peaks) has no type of its own.
    SELECT unnest(getvariable('peak_file_ids'))::INTEGER AS file_id,
           unnest(getvariable('bf16_tflops'))::DOUBLE AS bf16_tflops,
           unnest(getvariable('fp16_tflops'))::DOUBLE AS fp16_tflops,
           unnest(getvariable('fp8_tflops'))::DOUBLE AS fp8_tflops,
           unnest(getvariable('int8_tops'))::DOUBLE AS int8_tops,
           unnest(getvariable('hbm_gbps'))::DOUBLE AS hbm_gbps,
           unnest(getvariable('link_gbps'))::DOUBLE AS link_gbps
), times AS (
    SELECT w.*,
           w.flops / CASE w.precision WHEN 'bf16' THEN p.bf16_tflops WHEN 'fp16' THEN p.fp16_tflops
               WHEN 'fp8' THEN p.fp8_tflops WHEN 'int8' THEN p.int8_tops END / 1e3 AS compute_ns,
           CASE WHEN w.family <> 'collective' THEN w.bytes / p.hbm_gbps END AS memory_ns,
           CASE WHEN w.family = 'collective' THEN w.bytes / p.link_gbps END AS link_ns
    FROM kernel_work w LEFT JOIN peaks p USING (file_id)
    WHERE w.capture_id = getvariable('capture_id') AND w.analysis_key = getvariable('analysis_key')
      AND w.rank IS NOT NULL
), bounds AS (
    SELECT *, greatest(compute_ns, memory_ns, link_ns) AS bound_ns FROM times
)
SELECT phase, rank, file_id, name, category,
       sum(flops), sum(dur_ns) FILTER (flops IS NOT NULL),
       sum(bytes), sum(dur_ns) FILTER (bytes IS NOT NULL),
       sum(flops) FILTER (bytes IS NOT NULL), sum(bytes) FILTER (flops IS NOT NULL),
       sum(compute_ns), sum(memory_ns), sum(link_ns),
       sum(bound_ns), sum(dur_ns) FILTER (bound_ns IS NOT NULL), sum(dur_ns)
FROM bounds
GROUP BY ALL
ORDER BY ALL;
