-- Stage 73, compile and graph events (rank-local; docs/schema.md, step_compile_events): per step, what the host shows
-- of torch.compile and CUDA graphs, for the capture rules graph_recording, recompiles and graph_breaks
-- (docs/warnings.md): the compiled regions entered (Dynamo's 'Torch-Compiled Region: N/M' ranges: frame N, its
-- M-th compilation), compilation inside the step (entire_frame_compile, backend_compile, inductor_compile ranges),
-- CUDA graph recording (cudaStreamBeginCapture / cudaGraphInstantiate* calls and CUDA graph trees'
-- CUDAGraphNode.record ranges; hip* on ROCm), and the eager launches between the step's compiled regions (GPU
-- work launched after the first region ends and before the last one starts, inside none, by the innermost CPU op
-- around the launch: what a graph break leaves to run eagerly), and the compiled regions entered inside another
-- (Dynamo's resume function of a graph break, compiled as a frame of its own). A range or call belongs to the step whose CPU
-- range holds its start.
--         helper h_compile_marks(file_id, tid, step, event, name, start_ns, dur_ns): the marked ranges and calls
-- Reads:  cpu_ops, launches, names (store); t_files, t_steps, t_step_metrics, t_ops_core, t_launch_contexts
-- Writes: t_step_compile_events(file_id, rank, step, phase, event, name, calls, ns): event compiled_region,
--             resumed_region, compile, graph_record, graph_capture (name: the range's or call's; ns: their CPU
--             time) or
--             eager_between (name: the launching op, '(no CPU op)' for none; calls: launches; ns: the GPU time
--             of what they launched)
-- Portability: regexp_matches, starts_with, QUALIFY, USING joins and GROUP BY ALL are DuckDB's.

CREATE OR REPLACE TEMP TABLE h_compile_marks AS
WITH marked AS (
    SELECT n.file_id, n.name_id, n.name,
           CASE WHEN regexp_matches(n.name, '^Torch-Compiled Region: \d+/\d+$') THEN 'compiled_region'
                WHEN n.name IN ('entire_frame_compile', 'backend_compile', 'inductor_compile') THEN 'compile'
                WHEN n.name = 'CUDAGraphNode.record' THEN 'graph_record'
                WHEN regexp_matches(n.name, '^(cuda|hip)(StreamBeginCapture|GraphInstantiate)') THEN 'graph_capture'
           END AS event
    FROM names n JOIN t_files USING (file_id)
    WHERE starts_with(n.name, 'Torch-Compiled Region: ') OR n.name IN ('entire_frame_compile', 'backend_compile',
          'inductor_compile', 'CUDAGraphNode.record') OR regexp_matches(n.name, '^(cuda|hip)(StreamBeginCapture|GraphInstantiate)')
), ranges AS (
    SELECT o.file_id, o.tid, m.event, m.name, o.ts_ns AS start_ns, o.dur_ns
    FROM cpu_ops o JOIN marked m ON m.file_id = o.file_id AND m.name_id = o.name_id
    WHERE m.event IN ('compiled_region', 'compile', 'graph_record') AND o.kind IN ('cpu_op', 'user_annotation')
    UNION ALL
    SELECT l.file_id, l.tid, m.event, m.name, l.ts_ns, l.dur_ns
    FROM launches l JOIN marked m ON m.file_id = l.file_id AND m.name_id = l.name_id
    WHERE m.event = 'graph_capture'
)
SELECT r.file_id, r.tid, s.step, r.event, r.name, r.start_ns, r.dur_ns
FROM ranges r JOIN t_steps s ON s.file_id = r.file_id AND r.start_ns >= s.cpu_start AND r.start_ns < s.cpu_end
WHERE r.event IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY r.file_id, r.tid, r.event, r.name, r.start_ns ORDER BY s.step) = 1;

CREATE OR REPLACE TEMP TABLE t_step_compile_events AS
WITH regions AS (
    SELECT file_id, step, start_ns, start_ns + dur_ns AS end_ns FROM h_compile_marks WHERE event = 'compiled_region'
), spans AS (
    SELECT file_id, step, min(end_ns) AS first_end, max(start_ns) AS last_start FROM regions GROUP BY ALL
), eager AS (
    -- GPU work launched eagerly between the step's compiled regions, inside none of them
    SELECT o.file_id, o.step, o.correlation, o.dur_ns, c.op_name_id
    FROM t_ops_core o
    JOIN spans p ON p.file_id = o.file_id AND p.step = o.step
    LEFT JOIN t_launch_contexts c ON c.file_id = o.file_id AND c.correlation = o.correlation
    WHERE o.launch_ns > p.first_end AND o.launch_ns < p.last_start AND NOT coalesce(o.graph, false)
      AND NOT EXISTS (SELECT 1 FROM regions r WHERE r.file_id = o.file_id AND r.step = o.step
                      AND o.launch_ns >= r.start_ns AND o.launch_ns < r.end_ns)
), resumed AS (
    -- a compiled region entered inside another one of the step, on its thread: Dynamo's resume function after a
    -- graph break (the code after the break, compiled as a frame of its own, called from the first frame's code)
    SELECT DISTINCT i.file_id, i.step, i.tid, i.name, i.start_ns, i.dur_ns
    FROM h_compile_marks i JOIN h_compile_marks o
      ON o.file_id = i.file_id AND o.step = i.step AND o.tid IS NOT DISTINCT FROM i.tid
     AND o.event = 'compiled_region' AND i.event = 'compiled_region'
     AND i.start_ns > o.start_ns AND i.start_ns < o.start_ns + o.dur_ns
), rows AS (
    SELECT file_id, step, event, name, count(*) AS calls, sum(dur_ns) AS ns FROM h_compile_marks GROUP BY ALL
    UNION ALL
    SELECT file_id, step, 'resumed_region', name, count(*), sum(dur_ns) FROM resumed GROUP BY ALL
    UNION ALL
    SELECT e.file_id, e.step, 'eager_between', coalesce(n.name, '(no CPU op)'), count(DISTINCT e.correlation), sum(e.dur_ns)
    FROM eager e LEFT JOIN names n ON n.file_id = e.file_id AND n.name_id = e.op_name_id
    GROUP BY ALL
)
SELECT r.file_id, m.rank, r.step, m.phase, r.event, r.name, r.calls, r.ns
FROM rows r JOIN t_step_metrics m USING (file_id, step);
