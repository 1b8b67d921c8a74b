-- Stage 01, kernel classes (rank-local): the class of each (file, name, kind) of the capture's GPU
-- operations under one taxonomy, from the store's classified names (name_classes, written by
-- StoreClassifier). A name the taxonomy has not classified is other / unknown / other.unclassified.
-- Variant 0 is the name's own class; ContextClasses (stages 22-24) adds variants.
-- Parameters (DuckDB variables): taxonomy_digest, the taxonomy's digest (name_classes.taxonomy_digest)
-- Reads:  gpu_ops, names, name_classes (store); t_files
-- Writes: t_classes(file_id, name_id, kind, category, subcategory, rule_id, variant)
-- Portability: getvariable, USING joins and :: casts are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_classes AS
SELECT o.file_id, o.name_id, o.kind,
       coalesce(k.category, 'other') AS category,
       coalesce(k.subcategory, 'unknown') AS subcategory,
       coalesce(k.rule_id, 'other.unclassified') AS rule_id, 0::UTINYINT AS variant
FROM (SELECT DISTINCT file_id, name_id, kind FROM gpu_ops JOIN t_files USING (file_id)
      WHERE kind <> 'sync') o
JOIN names n USING (file_id, name_id)
LEFT JOIN name_classes k ON k.name = n.name AND k.kind = o.kind::VARCHAR
                        AND k.taxonomy_digest = getvariable('taxonomy_digest');
