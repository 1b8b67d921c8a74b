-- Stage 24, generic collectives (rank-local): NCCL's and RCCL's ncclDevKernel_Generic runs any collective;
-- each launch of a kernel of the rule generic_rule is typed from the collective its launching CPU op names
-- (record_param_comms, nccl:all_reduce, c10d::allreduce_...: the kernel's own comm record, its External
-- id's CPU op, or its runtime call's External id, in that order), as allreduce / nccl / allreduce_rule
-- or comm_other / TYPE / other_rule. Launches with no such op (graph replays) keep the name's class, and an
-- operation a launch rule classified (already in t_refined) keeps that class.
-- Parameters (DuckDB variables): generic_rule, allreduce_rule, other_rule (rule ids)
-- Reads:  names, cpu_ops, comm_meta, launches (store); t_files, t_ops_core, t_classes, t_collective_ops, t_refined
-- Writes: rows of t_refined; helpers h_collective_texts(text, type), h_coll_ops(file_id, external_id, type)
-- Portability: getvariable, QUALIFY, any_value, GROUP BY ALL and USING joins are DuckDB's.

-- Texts are typed once (a few thousand distinct names), then joined onto the rows that carry them.
CREATE OR REPLACE TEMP TABLE h_collective_texts AS
WITH texts AS (
    SELECT DISTINCT name AS text FROM names JOIN t_files USING (file_id)
    UNION
    SELECT DISTINCT collective FROM comm_meta JOIN t_files USING (file_id) WHERE collective IS NOT NULL
)
SELECT t.text, c.type
FROM texts t JOIN t_collective_ops c ON regexp_matches(lower(t.text), c.match)
QUALIFY row_number() OVER (PARTITION BY t.text ORDER BY c.ord) = 1;

CREATE OR REPLACE TEMP TABLE h_coll_ops AS
WITH typed_names AS (
    SELECT n.file_id, n.name_id, t.type
    FROM names n JOIN t_files USING (file_id) JOIN h_collective_texts t ON t.text = n.name
)
SELECT o.file_id, o.external_id, t.type
FROM cpu_ops o JOIN typed_names t USING (file_id, name_id)
WHERE o.external_id IS NOT NULL AND o.kind = 'cpu_op'
UNION ALL
SELECT m.file_id, m.external_id, t.type
FROM comm_meta m JOIN t_files USING (file_id) JOIN h_collective_texts t ON t.text = m.collective
WHERE m.source = 'cpu_op' AND m.external_id IS NOT NULL;

INSERT INTO t_refined
WITH cand AS (
    SELECT o.file_id, o.stream, o.ts_ns, o.name_id, o.kind, o.correlation, o.external_id
    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind)
    WHERE k.variant = 0 AND k.rule_id = getvariable('generic_rule')
      AND NOT EXISTS (SELECT 1 FROM t_refined r WHERE r.file_id = o.file_id AND r.stream IS NOT DISTINCT FROM o.stream
                      AND r.ts_ns = o.ts_ns AND r.name_id = o.name_id)
), own AS (
    SELECT m.file_id, m.correlation, any_value(t.type) AS type
    FROM comm_meta m JOIN t_files USING (file_id) JOIN h_collective_texts t ON t.text = m.collective
    WHERE m.source = 'kernel' AND m.correlation IS NOT NULL
    GROUP BY ALL
), by_ext AS (
    SELECT file_id, external_id, any_value(type) AS type FROM h_coll_ops GROUP BY ALL
), by_launch AS (
    SELECT l.file_id, l.correlation, any_value(e.type) AS type
    FROM launches l JOIN by_ext e ON e.file_id = l.file_id AND e.external_id = l.external_id
    WHERE l.correlation IS NOT NULL
    GROUP BY ALL
), typed AS (
    SELECT c.*, coalesce(own.type, by_ext.type, by_launch.type) AS type
    FROM cand c
    LEFT JOIN own ON own.file_id = c.file_id AND own.correlation = c.correlation
    LEFT JOIN by_ext ON by_ext.file_id = c.file_id AND by_ext.external_id = c.external_id
    LEFT JOIN by_launch ON by_launch.file_id = c.file_id AND by_launch.correlation = c.correlation
)
SELECT file_id, stream, ts_ns, name_id, kind,
       CASE WHEN type = 'allreduce' THEN 'allreduce' ELSE 'comm_other' END,
       CASE WHEN type = 'allreduce' THEN 'nccl' ELSE type END,
       CASE WHEN type = 'allreduce' THEN getvariable('allreduce_rule') ELSE getvariable('other_rule') END
FROM typed WHERE type IS NOT NULL;
