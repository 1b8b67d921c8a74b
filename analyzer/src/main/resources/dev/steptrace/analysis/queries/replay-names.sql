-- The names of one rank's GPU operations, for what-if changes that pick kernels by name (docs/whatif.md).
-- Parameters: file_id
-- Reads:   gpu_ops, names (store)
-- Returns: name_id, name
-- Portability: getvariable is DuckDB's.
SELECT n.name_id, n.name FROM names n
WHERE n.file_id = getvariable('file_id')
  AND n.name_id IN (SELECT DISTINCT name_id FROM gpu_ops WHERE file_id = getvariable('file_id'))
ORDER BY n.name_id
