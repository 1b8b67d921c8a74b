-- The files of the capture as the capture-quality rules read them (docs/warnings.md: partial_file, missing_ranks,
-- multi_gpu_file): each file's rank, the world size it states, whether it is complete, and how many CUDA processes
-- and GPUs its GPU work came from when it holds more than one of either (files.anomalies).
-- Parameters: capture_id
-- Reads:   capture_files (view), files
-- Returns: file_id, rank, path, world_size, status, partial_reason, cuda_processes, gpu_devices (NULL: one)
-- Portability: getvariable and the ->> JSON operator are DuckDB's.
SELECT f.file_id, f.rank, f.path, f.world_size, f.status, f.partial_reason,
       (f.anomalies->>'$.cuda_processes')::BIGINT AS cuda_processes,
       (f.anomalies->>'$.gpu_devices')::BIGINT AS gpu_devices
FROM capture_files m JOIN files f USING (file_id)
WHERE m.capture_id = getvariable('capture_id')
ORDER BY f.rank, f.path;
