-- Before stage 23 (ContextClasses): the capture's distinct kernel names, each once, for the taxonomy's context
-- rules to decide which of them an MoE block changes.
-- Reads:   t_classes, names
-- Returns: name
SELECT DISTINCT n.name
FROM t_classes k JOIN names n USING (file_id, name_id)
WHERE k.kind = 'kernel' AND k.variant = 0
ORDER BY n.name;
