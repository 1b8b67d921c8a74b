-- The batch size of a phase's steps, from recorded input shapes (decide's CaptureBatch, docs/scenarios.md): per
-- kept step of the phase, its first GEMM or embedding with input shapes, whose first input's rows (an embedding's
-- indices) are its tokens, one per sequence in a decode step. CUDA-graph replays carry no shapes.
-- Parameters: capture_id, analysis_key, phase
-- Reads:   steps, cpu_ops, op_shapes, names
-- Returns: op, dims (per step with one, in file and step order)
-- Portability: getvariable and arg_min are DuckDB's.
SELECT arg_min(n.name, o.ts_ns) AS op, arg_min(sh.input_dims, o.ts_ns) AS dims
FROM steps s
JOIN cpu_ops o ON o.file_id = s.file_id AND o.ts_ns >= s.start_ns AND o.ts_ns < s.end_ns
JOIN op_shapes sh ON sh.file_id = o.file_id AND sh.shape_id = o.shape_id
JOIN names n ON n.file_id = o.file_id AND n.name_id = o.name_id
WHERE s.capture_id = getvariable('capture_id') AND s.analysis_key = getvariable('analysis_key')
  AND s.phase = getvariable('phase') AND sh.input_dims IS NOT NULL
  AND n.name IN ('aten::mm', 'aten::addmm', 'aten::matmul', 'aten::linear', 'aten::bmm', 'aten::embedding')
GROUP BY s.file_id, s.step
ORDER BY s.file_id, s.step;
