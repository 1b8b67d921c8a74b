-- Per file, what the capture-quality rules read that no other analysis table keeps (stage 80-file-checks; rules
-- ops_outside_steps, graph_without_kernels, nvtx_ranges_not_steps of docs/warnings.md): its GPU operations and
-- those in no step with their time, its CUDA graph launches and those whose replay has no kernel records, and why
-- its NVTX ranges were not taken as steps.
-- Parameters: capture_id, analysis_key
-- Reads:   file_checks
-- Returns: rank, file_id, ops, ops_ns, outside_ops, outside_ns, graph_launches, graph_launches_without_kernels,
--          nvtx_note
-- Portability: getvariable is DuckDB's.
SELECT rank, file_id, ops, ops_ns, outside_ops, outside_ns, graph_launches, graph_launches_without_kernels, nvtx_note
FROM file_checks
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
ORDER BY rank, file_id;
