-- Stage 22, classes from context (rank-local; docs/taxonomy.md, "Classes from context"): the tables the
-- refinements of stages 23 and 24 fill, and stage 25 applies. ContextClasses fills t_block_names (from the
-- taxonomy's context rules, where the capture has an MoE GEMM) and t_collective_ops (collective-ops.yaml).
-- Reads:  t_ops_core
-- Writes: t_refined(file_id, stream, ts_ns, name_id, kind, category, subcategory, rule_id): one row per
--             operation whose class its context gives; t_block_names(name, category, subcategory, rule_id):
--             kernel names a context: moe_block rule matches, with that rule's class;
--             t_collective_ops(ord, type, match): collective types by regex on a lower-cased op name, the
--             first match in ord order wins; all three empty
-- Portability: :: casts are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_refined AS
SELECT file_id, stream, ts_ns, name_id, kind, ''::VARCHAR AS category, ''::VARCHAR AS subcategory,
       ''::VARCHAR AS rule_id
FROM t_ops_core WHERE false;

CREATE OR REPLACE TEMP TABLE t_block_names (name VARCHAR, category VARCHAR, subcategory VARCHAR, rule_id VARCHAR);

CREATE OR REPLACE TEMP TABLE t_collective_ops (ord INTEGER, type VARCHAR, match VARCHAR);
