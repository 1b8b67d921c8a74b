-- Before stage 22-launch-rules (ContextClasses): the distinct names of the ranges around the launch calls
-- (stage 22-launch-contexts), side op for CPU ops and within for annotations and nn.Module ranges, for the
-- taxonomy's op: and within: patterns.
-- Reads:   h_ctx_ranges, names
-- Returns: name, side
SELECT DISTINCT n.name, CASE WHEN r.layer = 'op' THEN 'op' ELSE 'within' END AS side
FROM h_ctx_ranges r JOIN names n USING (file_id, name_id)
ORDER BY side, n.name;
