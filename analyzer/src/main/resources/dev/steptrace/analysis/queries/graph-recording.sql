-- CUDA graphs recorded inside the capture (rule graph_recording of docs/warnings.md): per step, the graph capture
-- calls (cudaStreamBeginCapture, cudaGraphInstantiate*; hip* on ROCm) and CUDA graph trees' recording ranges
-- (CUDAGraphNode.record), with the compiled regions the step entered.
-- Parameters: capture_id, analysis_key
-- Reads:   step_compile_events, steps
-- Returns: phase, rank, step, step_name (the step's annotation), event (graph_capture, graph_record,
--          compiled_region), name, calls, ns; only steps that record; in step order
-- Portability: getvariable and SEMI JOIN are DuckDB's.
WITH ev AS (
    SELECT e.phase, e.rank, e.file_id, e.step, s.name AS step_name, e.event, e.name, e.calls, e.ns
    FROM step_compile_events e
    JOIN steps s ON s.capture_id = e.capture_id AND s.analysis_key = e.analysis_key AND s.file_id = e.file_id
     AND s.step = e.step
    WHERE e.capture_id = getvariable('capture_id') AND e.analysis_key = getvariable('analysis_key')
)
SELECT phase, rank, step, step_name, event, name, calls, ns
FROM ev SEMI JOIN (SELECT file_id, step FROM ev WHERE event = 'graph_capture') r USING (file_id, step)
WHERE event IN ('graph_capture', 'graph_record', 'compiled_region')
ORDER BY phase, rank, step, event, name
