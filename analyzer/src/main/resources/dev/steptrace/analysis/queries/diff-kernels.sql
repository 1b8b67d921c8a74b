-- A diff side's kernel time and calls per step and kernel (docs/diff.md), with the kernel's class; the
-- name as its position in diff-kernels-names (from 0), so that a reader makes no string per row. In a
-- fixed order, as diff-categories.
-- Parameters: capture_id, analysis_key
-- Reads:   step_kernels, kernel_classes
-- Returns: phase, file_id, step, name_id, category, subcategory, ns, calls
-- Portability: getvariable and USING joins are DuckDB's.
SELECT k.phase, k.file_id, k.step, (dense_rank() OVER (ORDER BY k.name) - 1)::INTEGER AS name_id,
       c.category, c.subcategory, k.ns, k.calls
FROM step_kernels k JOIN kernel_classes c USING (capture_id, analysis_key, name, kind, variant)
WHERE k.capture_id = getvariable('capture_id') AND k.analysis_key = getvariable('analysis_key') AND k.rank IS NOT NULL
ORDER BY k.phase, k.file_id, k.step, name_id, k.kind
