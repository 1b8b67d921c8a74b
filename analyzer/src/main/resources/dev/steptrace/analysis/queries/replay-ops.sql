-- One rank's GPU operations for a replay of some of its steps (docs/whatif.md): every operation (kernel, memcpy,
-- memset) that ends at from_ns or later and starts at to_ns or earlier (the steps' span), in time order, with its class (its context's
-- where the analysis gave it one) and, for a collective instance matched on every rank, its transfer, message
-- size and group.
-- Parameters: capture_id, analysis_key, file_id, from_ns, to_ns
-- Reads:   gpu_ops, names (store); kernel_classes, context_ops, collective_instances
-- Returns: ts_ns, dur_ns, stream, correlation, name_id, category, subcategory, instance, transfer_ns, msg_bytes,
--          group_size, type
-- Portability: getvariable, USING joins and IS NOT DISTINCT FROM are DuckDB's.
WITH ctx AS (
    SELECT stream, ts_ns, any_value(variant) AS variant FROM context_ops
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND file_id = getvariable('file_id')
    GROUP BY stream, ts_ns
), classes AS (
    SELECT name, kind, variant, any_value(category) AS category, any_value(subcategory) AS subcategory
    FROM kernel_classes
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
    GROUP BY name, kind, variant
), instances AS (
    SELECT ts_ns, dur_ns, any_value(instance) AS instance, any_value(transfer_ns) AS transfer_ns, any_value(msg_bytes) AS msg_bytes,
           any_value(group_size) AS group_size, any_value(type) AS type
    FROM collective_instances
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND file_id = getvariable('file_id') AND transfer_ns IS NOT NULL
    GROUP BY ts_ns, dur_ns
)
SELECT g.ts_ns, g.dur_ns, g.stream, g.correlation, g.name_id, coalesce(k.category, 'other'),
       coalesce(k.subcategory, ''), i.instance, i.transfer_ns, i.msg_bytes, i.group_size, i.type
FROM gpu_ops g
JOIN names n ON n.file_id = g.file_id AND n.name_id = g.name_id
LEFT JOIN ctx c ON c.stream IS NOT DISTINCT FROM g.stream AND c.ts_ns = g.ts_ns
LEFT JOIN classes k ON k.name = n.name AND k.kind = g.kind::VARCHAR AND k.variant = coalesce(c.variant, 0)
LEFT JOIN instances i ON i.ts_ns = g.ts_ns AND i.dur_ns = g.dur_ns
WHERE g.file_id = getvariable('file_id') AND g.kind <> 'sync'
  AND g.ts_ns + g.dur_ns >= getvariable('from_ns') AND g.ts_ns <= getvariable('to_ns')
ORDER BY g.ts_ns, g.stream, g.correlation
