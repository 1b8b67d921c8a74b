-- Stage 22, classes from context (rank-local; docs/taxonomy.md, "Classes from context"): the tables the
-- refinements of stages 22-launch-rules, 23 and 24 fill, and stage 25 applies. ContextClasses fills t_launch_rules,
-- t_launch_rule_names and t_context_marks (the taxonomy's rules with op: / within:), t_block_names (its
-- context: moe_block rules, where the capture has an MoE GEMM) and t_collective_ops (collective-ops.yaml).
-- Reads:  t_ops_core
-- Writes: t_refined(file_id, stream, ts_ns, name_id, kind, category, subcategory, rule_id): one row per
--             operation whose class its context gives; t_block_names(name, category, subcategory, rule_id):
--             kernel names a context: moe_block rule matches, with that rule's class;
--             t_collective_ops(ord, type, match): collective types by regex on a lower-cased op name, the
--             first match in ord order wins;
--         t_launch_rules(rule_ord, needs_op, needs_within, category, subcategory, rule_id): the rules with op: /
--             within:, by their position in the taxonomy; t_launch_rule_names(name, kind, rule_ord): the rules each
--             operation name may take; t_context_marks(name, side, rule_ord): the names around launches each rule's
--             op (side op) or within (side within) pattern finds; all six empty
-- Portability: :: casts are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_refined AS
SELECT file_id, stream, ts_ns, name_id, kind, ''::VARCHAR AS category, ''::VARCHAR AS subcategory,
       ''::VARCHAR AS rule_id
FROM t_ops_core WHERE false;

CREATE OR REPLACE TEMP TABLE t_block_names (name VARCHAR, category VARCHAR, subcategory VARCHAR, rule_id VARCHAR);

CREATE OR REPLACE TEMP TABLE t_collective_ops (ord INTEGER, type VARCHAR, match VARCHAR);

CREATE OR REPLACE TEMP TABLE t_launch_rules (rule_ord INTEGER, needs_op BOOLEAN, needs_within BOOLEAN, category VARCHAR,
    subcategory VARCHAR, rule_id VARCHAR);

CREATE OR REPLACE TEMP TABLE t_launch_rule_names (name VARCHAR, kind VARCHAR, rule_ord INTEGER);

CREATE OR REPLACE TEMP TABLE t_context_marks (name VARCHAR, side VARCHAR, rule_ord INTEGER);
