-- A diff side's kernel time and calls per step, category and subcategory (docs/diff.md), in a fixed
-- order: sums of doubles, and so the seeded bootstrap, must not depend on the order DuckDB's parallel
-- aggregation happens to produce.
-- Parameters: capture_id, analysis_key
-- Reads:   step_categories
-- Returns: phase, file_id, step, category, subcategory, ns, calls
-- Portability: getvariable is DuckDB's.
SELECT phase, file_id, step, category, subcategory, ns, calls
FROM step_categories
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key') AND rank IS NOT NULL
ORDER BY phase, file_id, step, category, subcategory
