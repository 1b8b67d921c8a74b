-- Stage 25, class variants (rank-local): each distinct refined class is a variant (1, 2, ... in class
-- order); t_classes gets a row of that variant for each refined (file, name, kind), and each refined
-- operation in t_ops_core its variant (0, the name's own class, elsewhere).
-- Reads:  t_refined
-- Writes: rows of t_classes; t_ops_core.variant; helper h_variants(variant, category, subcategory, rule_id)
-- Portability: UPDATE ... FROM, USING joins and :: casts are DuckDB's.

CREATE OR REPLACE TEMP TABLE h_variants AS
SELECT (row_number() OVER (ORDER BY category, subcategory, rule_id))::UTINYINT AS variant,
       category, subcategory, rule_id
FROM (SELECT DISTINCT category, subcategory, rule_id FROM t_refined);

INSERT INTO t_classes (file_id, name_id, kind, category, subcategory, rule_id, variant)
SELECT DISTINCT r.file_id, r.name_id, r.kind, v.category, v.subcategory, v.rule_id, v.variant
FROM t_refined r JOIN h_variants v USING (category, subcategory, rule_id);

UPDATE t_ops_core SET variant = x.variant
FROM (SELECT r.file_id, r.stream, r.ts_ns, r.name_id, v.variant
      FROM t_refined r JOIN h_variants v USING (category, subcategory, rule_id)) x
WHERE t_ops_core.file_id = x.file_id AND t_ops_core.stream IS NOT DISTINCT FROM x.stream
  AND t_ops_core.ts_ns = x.ts_ns AND t_ops_core.name_id = x.name_id;
