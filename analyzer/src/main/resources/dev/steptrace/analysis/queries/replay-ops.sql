-- One rank's GPU operations for a replay of some of its steps (docs/whatif.md): every operation (kernel, memcpy,
-- memset) that ends at from_ns or later and starts at to_ns or earlier (the steps' span), in time order, with its
-- name id, kind and variant (its context's where the analysis gave it one: replay-classes names the class) and,
-- for a collective instance matched on every rank, its transfer, message size and group. The class's strings and
-- the joins by name are replay-classes', read once per analysis: with them, a run's query took 4x as long.
-- Parameters: capture_id, analysis_key, file_id, from_ns, to_ns
-- Reads:   gpu_ops (store); context_ops, collective_instances
-- Returns: ts_ns, dur_ns, stream, correlation, name_id, kind (gpu_op_kind's code), variant, instance, transfer_ns,
--          msg_bytes, group_size, type
-- Portability: getvariable, enum_code and IS NOT DISTINCT FROM are DuckDB's.
WITH ctx AS (
    SELECT stream, ts_ns, any_value(variant) AS variant FROM context_ops
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND file_id = getvariable('file_id') AND ts_ns <= getvariable('to_ns')
    GROUP BY stream, ts_ns
), instances AS (
    SELECT ts_ns, dur_ns, any_value(instance) AS instance, any_value(transfer_ns) AS transfer_ns, any_value(msg_bytes) AS msg_bytes,
           any_value(group_size) AS group_size, any_value(type) AS type
    FROM collective_instances
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND file_id = getvariable('file_id') AND transfer_ns IS NOT NULL
      AND ts_ns + dur_ns >= getvariable('from_ns') AND ts_ns <= getvariable('to_ns')
    GROUP BY ts_ns, dur_ns
)
SELECT g.ts_ns, g.dur_ns, g.stream, g.correlation, g.name_id, enum_code(g.kind), coalesce(c.variant, 0), i.instance,
       i.transfer_ns, i.msg_bytes, i.group_size, i.type
FROM gpu_ops g
LEFT JOIN ctx c ON c.stream IS NOT DISTINCT FROM g.stream AND c.ts_ns = g.ts_ns
LEFT JOIN instances i ON i.ts_ns = g.ts_ns AND i.dur_ns = g.dur_ns
WHERE g.file_id = getvariable('file_id') AND g.kind <> 'sync'
  AND g.ts_ns + g.dur_ns >= getvariable('from_ns') AND g.ts_ns <= getvariable('to_ns')
ORDER BY g.ts_ns, g.stream, g.correlation
