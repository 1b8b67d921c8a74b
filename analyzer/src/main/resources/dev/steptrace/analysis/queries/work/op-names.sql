-- Before stage 22-launch-rules (ContextClasses): the capture's distinct GPU operation names with their kinds, of
-- the names' own classes (variant 0), for the taxonomy's launch rules to say which rules each may take.
-- Reads:   t_classes, names
-- Returns: name, kind
SELECT DISTINCT n.name, k.kind::VARCHAR AS kind
FROM t_classes k JOIN names n USING (file_id, name_id)
WHERE k.variant = 0
ORDER BY n.name, kind;
