-- The graph input copies of each phase (rule graph_input_copies of docs/warnings.md): the operations a taxonomy rule
-- made memcpy / graph_input_copy (CUDA graph trees' _foreach_copy_ of non-static inputs), per phase and launching op,
-- beside the phase's steps, step time and CUDA graph launches over every rank.
-- Parameters: capture_id, analysis_key
-- Reads:   kernel_contexts, kernel_classes, step_times
-- Returns: phase, op (NULL: none around the launch), copy_ns, copy_calls, steps, step_ns, graph_launches; most time first
-- Portability: getvariable and USING joins are DuckDB's.
WITH copies AS (
    SELECT c.phase, c.op, sum(c.ns) AS copy_ns, sum(c.calls) AS copy_calls
    FROM kernel_contexts c JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
    WHERE c.capture_id = getvariable('capture_id') AND c.analysis_key = getvariable('analysis_key')
      AND k.category = 'memcpy' AND k.subcategory = 'graph_input_copy'
    GROUP BY c.phase, c.op
), phases AS (
    SELECT phase, count(*) AS steps, sum(step_ns) AS step_ns, sum(graph_launches) AS graph_launches
    FROM step_times
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
    GROUP BY phase
)
SELECT c.phase, c.op, c.copy_ns, c.copy_calls, p.steps, p.step_ns, p.graph_launches
FROM copies c JOIN phases p USING (phase)
ORDER BY c.copy_ns DESC, c.phase, c.op;
