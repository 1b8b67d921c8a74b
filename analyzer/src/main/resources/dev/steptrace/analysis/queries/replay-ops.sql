-- One rank's GPU operations for a replay of its steps (docs/whatif.md): every operation (kernel, memcpy,
-- memset) from its first step's start to its last step's end, in time order, with its class (its context's
-- where the analysis gave it one) and, for a collective instance matched on every rank, its wait, transfer,
-- message size and group.
-- Parameters: capture_id, analysis_key, file_id
-- Reads:   gpu_ops, names (store); step_times, kernel_classes, context_ops, collective_instances
-- Returns: ts_ns, dur_ns, stream, correlation, name_id, category, subcategory, instance, wait_ns, transfer_ns,
--          msg_bytes, group_size, type
-- Portability: getvariable, USING joins and IS NOT DISTINCT FROM are DuckDB's.
WITH span AS (
    SELECT min(start_ns) AS lo, max(end_ns) AS hi FROM step_times
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND file_id = getvariable('file_id')
), ctx AS (
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
    SELECT ts_ns, dur_ns, any_value(instance) AS instance, any_value(wait_ns) AS wait_ns,
           any_value(transfer_ns) AS transfer_ns, any_value(msg_bytes) AS msg_bytes,
           any_value(group_size) AS group_size, any_value(type) AS type
    FROM collective_instances
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND file_id = getvariable('file_id') AND transfer_ns IS NOT NULL
    GROUP BY ts_ns, dur_ns
)
SELECT g.ts_ns, g.dur_ns, g.stream, g.correlation, g.name_id, coalesce(k.category, 'other'),
       coalesce(k.subcategory, ''), i.instance, i.wait_ns, i.transfer_ns, i.msg_bytes, i.group_size, i.type
FROM gpu_ops g
JOIN names n ON n.file_id = g.file_id AND n.name_id = g.name_id
LEFT JOIN ctx c ON c.stream IS NOT DISTINCT FROM g.stream AND c.ts_ns = g.ts_ns
LEFT JOIN classes k ON k.name = n.name AND k.kind = g.kind::VARCHAR AND k.variant = coalesce(c.variant, 0)
LEFT JOIN instances i ON i.ts_ns = g.ts_ns AND i.dur_ns = g.dur_ns
WHERE g.file_id = getvariable('file_id') AND g.kind <> 'sync'
  AND g.ts_ns + g.dur_ns >= (SELECT lo FROM span) AND g.ts_ns <= (SELECT hi FROM span)
ORDER BY g.ts_ns, g.stream, g.correlation
