-- Between stages 22 and 23-24 (ContextClasses): how many classes of the capture's names are of a category, or were
-- given by a taxonomy rule; a stage that refines them runs only where there are some.
-- Parameters: category, rule_id (either NULL: not asked)
-- Reads:   t_classes
-- Returns: classes
-- Portability: getvariable is DuckDB's.
SELECT count(*) AS classes
FROM t_classes
WHERE category = getvariable('category')::VARCHAR OR rule_id = getvariable('rule_id')::VARCHAR;
