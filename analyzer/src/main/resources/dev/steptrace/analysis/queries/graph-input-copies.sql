-- The graph input copies of each phase (rule graph_input_copies of docs/warnings.md), in the steps that replay CUDA
-- graphs: the operations a taxonomy rule made memcpy / graph_input_copy (CUDA graph trees' _foreach_copy_ of
-- non-static inputs), beside the GPU time of those steps, its largest other part (a kernel category) and their step
-- time, over every rank; with the CPU ops that launched the phase's copies, most time first.
-- Parameters: capture_id, analysis_key
-- Reads:   step_times, step_kernels, kernel_classes, kernel_contexts
-- Returns: phase, ops (the launching ops, most copy time first; '(no CPU op)' for none), copy_ns, copy_calls,
--          gpu_ns (every operation's time in those steps), largest_other_ns (the largest kernel category but the
--          copies; NULL for none), steps, step_ns; most copy time first
-- Portability: getvariable, FILTER, string_agg's ORDER BY and USING joins are DuckDB's.
WITH graph_steps AS (
    SELECT file_id, step, phase, step_ns
    FROM step_times
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND graph_launches > 0
), parts AS (
    SELECT g.phase,
           CASE WHEN k.category = 'memcpy' AND k.subcategory = 'graph_input_copy' THEN 'graph_input_copy'
                ELSE k.category END AS part,
           sum(s.ns) AS ns, sum(s.calls) AS calls
    FROM step_kernels s
    JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
    JOIN graph_steps g ON g.file_id = s.file_id AND g.step = s.step
    WHERE s.capture_id = getvariable('capture_id') AND s.analysis_key = getvariable('analysis_key')
    GROUP BY ALL
), phases AS (
    SELECT phase, count(*) AS steps, sum(step_ns) AS step_ns FROM graph_steps GROUP BY phase
), op_ns AS (
    SELECT c.phase, coalesce(c.op, '(no CPU op)') AS op, sum(c.ns) AS ns
    FROM kernel_contexts c JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
    WHERE c.capture_id = getvariable('capture_id') AND c.analysis_key = getvariable('analysis_key')
      AND k.category = 'memcpy' AND k.subcategory = 'graph_input_copy'
    GROUP BY ALL
), ops AS (
    SELECT phase, string_agg(op, ', ' ORDER BY ns DESC, op) AS ops FROM op_ns GROUP BY phase
), totals AS (
    SELECT phase, sum(ns) AS gpu_ns, max(ns) FILTER (WHERE part <> 'graph_input_copy') AS largest_other_ns
    FROM parts GROUP BY phase
)
SELECT p.phase, o.ops, c.ns AS copy_ns, c.calls AS copy_calls, t.gpu_ns, t.largest_other_ns, p.steps, p.step_ns
FROM phases p
JOIN parts c ON c.phase = p.phase AND c.part = 'graph_input_copy'
JOIN totals t ON t.phase = p.phase
LEFT JOIN ops o ON o.phase = p.phase
ORDER BY copy_ns DESC, p.phase
