-- The classes a replay gives GPU operations (docs/whatif.md), per rank's file: for each name id, kind and
-- variant of the capture's kernel_classes, the category and subcategory. replay-ops returns each operation's name
-- id, kind and variant, so that a run's rows carry three numbers instead of two strings and the joins by name.
-- Parameters: capture_id, analysis_key
-- Reads:   names (store); kernel_classes, replay_latencies (a row per file of the analysis)
-- Returns: file_id, name_id, kind (gpu_op_kind's code, as replay-ops), variant, category, subcategory
-- Portability: getvariable, enum_code, the cast to the store's ENUM and USING joins are DuckDB's.
SELECT n.file_id, n.name_id, enum_code(k.kind::gpu_op_kind), k.variant, any_value(k.category), any_value(k.subcategory)
FROM kernel_classes k
JOIN names n USING (name)
WHERE k.capture_id = getvariable('capture_id') AND k.analysis_key = getvariable('analysis_key')
  AND n.file_id IN (SELECT file_id FROM replay_latencies
                    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key'))
GROUP BY n.file_id, n.name_id, k.kind, k.variant
ORDER BY n.file_id, n.name_id, k.kind, k.variant
