-- The recorded input shapes of the capture's calls of some ops, with their calls per step of the phase, for
-- checking a model file against the capture (roofline/ModelCheck, docs/roofline.md): norms, attention and top-k.
-- Parameters: capture_id, analysis_key; ops (the op names to read, a list; NULL: every op with shapes)
-- Reads:   op_shape_calls, op_shapes, step_metrics
-- Returns: phase, name, input_dims, input_types, concrete_inputs, calls (over the capture's ranks), steps (of the
--          phase, over the capture's ranks)
-- Portability: getvariable, list_contains and GROUP BY ALL are DuckDB's.
WITH steps AS (
    SELECT phase, count(*) AS steps FROM step_metrics
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
    GROUP BY phase
)
SELECT o.phase, o.name, p.input_dims, p.input_types, p.concrete_inputs, sum(o.calls) AS calls,
       any_value(steps.steps) AS steps
FROM op_shape_calls o
JOIN steps USING (phase)
JOIN op_shapes p ON p.file_id = o.file_id AND p.shape_id = o.shape_id
WHERE o.capture_id = getvariable('capture_id') AND o.analysis_key = getvariable('analysis_key') AND o.rank IS NOT NULL
  AND (getvariable('ops') IS NULL OR list_contains(getvariable('ops')::VARCHAR[], o.name))
GROUP BY ALL
ORDER BY ALL;
