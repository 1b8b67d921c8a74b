-- Stage 22, classes by the launch's context (rank-local; docs/taxonomy.md, "Classes from the launching op"): an
-- operation whose name a rule with op: / within: matches (before its name's own rule) takes the class of the
-- first such rule whose context its launch call has: an enclosing CPU op its op pattern found, and an enclosing
-- annotation or nn.Module range its within pattern found, on the launching thread at the call's start.
-- ContextClasses fills t_launch_rules and t_launch_rule_names from the taxonomy, t_context_marks from the
-- capture's names.
-- Reads:  names (store); t_ops_core, t_classes, h_ctx_launches, h_ctx_ranges (stage 22-launch-contexts),
--         t_launch_rules(rule_ord, needs_op, needs_within, category, subcategory, rule_id),
--         t_launch_rule_names(name, kind, rule_ord): the rules each name may take, by order,
--         t_context_marks(name, side, rule_ord): the op (side op) and annotation / module names (side within)
--             each rule's pattern finds
-- Writes: rows of t_refined; helpers h_launch_rule_names(file_id, name_id, kind, rule_ord): the names each rule may
--             take, h_launch_hits(file_id, correlation, rule_ord): the launches of their operations whose context
--             holds for a rule
-- Portability: ASOF JOIN, arg_max, QUALIFY, GROUP BY ALL and USING joins are DuckDB's.

-- The names each rule may take, in the capture's name ids: only their operations' launches are asked about.
CREATE OR REPLACE TEMP TABLE h_launch_rule_names AS
SELECT n.file_id, n.name_id, c.kind, c.rule_ord
FROM names n JOIN t_launch_rule_names c ON c.name = n.name
SEMI JOIN t_ops_core o ON o.file_id = n.file_id AND o.name_id = n.name_id;

-- A rule's context holds at t when a marked range of the thread encloses t: the marked ranges of one side and
-- rule nest, so that is a running count of starts less ends above zero at t (stage 22-launch-contexts' method).
CREATE OR REPLACE TEMP TABLE h_launch_hits AS
WITH marked AS (
    SELECT r.file_id, r.pid, r.tid, m.rule_ord, m.side, r.start_ns, r.end_ns
    FROM h_ctx_ranges r
    JOIN names n USING (file_id, name_id)
    JOIN t_context_marks m ON m.name = n.name
     AND (m.side = 'op') = (r.layer = 'op')
), ev AS (
    SELECT file_id, pid, tid, rule_ord, side, start_ns AS at_ns, 1 AS delta FROM marked
    UNION ALL
    SELECT file_id, pid, tid, rule_ord, side, end_ns, -1 FROM marked
), counted AS (
    SELECT *, sum(delta) OVER w AS depth, row_number() OVER w AS seq
    FROM ev WINDOW w AS (PARTITION BY file_id, pid, tid, rule_ord, side ORDER BY at_ns, delta
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
), levels AS (
    SELECT file_id, pid, tid, rule_ord, side, at_ns, arg_max(depth, seq) AS depth FROM counted GROUP BY ALL
), asked AS (
    -- the launches of operations a rule may classify, for the sides of that rule marked on their thread
    SELECT DISTINCT l.file_id, l.correlation, l.pid, l.tid, l.at_ns, s.rule_ord, s.side
    FROM h_ctx_launches l
    JOIN t_ops_core o ON o.file_id = l.file_id AND o.correlation = l.correlation AND o.variant = 0
    JOIN h_launch_rule_names c ON c.file_id = o.file_id AND c.name_id = o.name_id AND c.kind = o.kind::VARCHAR
    JOIN (SELECT DISTINCT file_id, pid, tid, rule_ord, side FROM marked) s
      ON s.file_id = l.file_id AND s.pid = l.pid AND s.tid = l.tid AND s.rule_ord = c.rule_ord
), sides AS (
    SELECT a.file_id, a.correlation, a.rule_ord, a.side
    FROM asked a ASOF JOIN levels v
      ON v.file_id = a.file_id AND v.pid = a.pid AND v.tid = a.tid AND v.rule_ord = a.rule_ord AND v.side = a.side
     AND v.at_ns <= a.at_ns
    WHERE v.depth > 0
)
SELECT s.file_id, s.correlation, s.rule_ord
FROM sides s JOIN t_launch_rules r USING (rule_ord)
GROUP BY s.file_id, s.correlation, s.rule_ord
HAVING (NOT any_value(r.needs_op) OR bool_or(s.side = 'op'))
   AND (NOT any_value(r.needs_within) OR bool_or(s.side = 'within'));

INSERT INTO t_refined
SELECT o.file_id, o.stream, o.ts_ns, o.name_id, o.kind, r.category, r.subcategory, r.rule_id
FROM t_ops_core o
JOIN h_launch_rule_names c ON c.file_id = o.file_id AND c.name_id = o.name_id AND c.kind = o.kind::VARCHAR
JOIN h_launch_hits h ON h.file_id = o.file_id AND h.correlation = o.correlation AND h.rule_ord = c.rule_ord
JOIN t_launch_rules r ON r.rule_ord = c.rule_ord
WHERE o.variant = 0
QUALIFY row_number() OVER (PARTITION BY o.file_id, o.stream, o.ts_ns, o.name_id ORDER BY c.rule_ord) = 1;
