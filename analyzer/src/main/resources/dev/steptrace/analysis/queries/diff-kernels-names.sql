-- A diff side's distinct kernel names (those with a class), in name order: the dictionary whose
-- positions diff-kernels gives as name ids.
-- Parameters: capture_id, analysis_key
-- Reads:   step_kernels, kernel_classes
-- Returns: name
-- Portability: getvariable and USING joins are DuckDB's.
SELECT DISTINCT k.name
FROM step_kernels k JOIN kernel_classes c USING (capture_id, analysis_key, name, kind, variant)
WHERE k.capture_id = getvariable('capture_id') AND k.analysis_key = getvariable('analysis_key') AND k.rank IS NOT NULL
ORDER BY k.name
