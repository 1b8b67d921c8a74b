-- Stage 43, what a named straggler was busy with before it arrived late (rank-local: it reads the one
-- late rank's operations). For each instance at which rank "rank" arrived last in phase "phase":
-- after_category, the category with the most time on that rank since its previous collective of the
-- step. Run only for the ranks Stragglers names (it reads every operation of the rank's file).
-- Parameters (DuckDB variables): phase, rank
-- Reads:  t_collective_arrivals, t_ops_core, t_classes
-- Writes: t_collective_arrivals.after_category; helper h_straggler_instances(phase, phase_index, type, k,
--         wait_ns, after_category)
-- Portability: QUALIFY, arg_max and UPDATE ... FROM are DuckDB's (Spark SQL: a row_number() filter in a
-- subquery, max_by, and a MERGE).

CREATE OR REPLACE TEMP TABLE h_straggler_instances AS
WITH late AS (
    SELECT * FROM t_collective_arrivals WHERE phase = getvariable('phase') AND last_rank = getvariable('rank')
), ops AS (
    SELECT o.file_id, o.step, o.ts_ns, o.dur_ns, k.category,
           k.category IN ('allreduce', 'comm_other') AS comm
    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind, variant)
    WHERE o.step IS NOT NULL AND o.file_id IN (SELECT DISTINCT last_file_id FROM late)
), numbered AS (
    -- seg: collectives started so far; the work between two collectives shares one value
    SELECT *, count(*) FILTER (WHERE comm) OVER (PARTITION BY file_id ORDER BY step, ts_ns, comm DESC
                                                ROWS UNBOUNDED PRECEDING) AS seg
    FROM ops
), seg_category AS (
    SELECT file_id, step, seg, arg_max(category, ns) AS category
    FROM (SELECT file_id, step, seg, category, sum(dur_ns) AS ns FROM numbered WHERE NOT comm GROUP BY ALL)
    GROUP BY ALL
)
SELECT l.phase, l.phase_index, l.type, l.k, l.wait_ns, sc.category AS after_category
FROM late l
JOIN numbered n ON n.comm AND n.file_id = l.last_file_id AND n.step = l.last_step AND n.ts_ns = l.last_ts_ns
LEFT JOIN seg_category sc ON sc.file_id = n.file_id AND sc.step = n.step AND sc.seg = n.seg - 1
QUALIFY row_number() OVER (PARTITION BY l.phase_index, l.type, l.k ORDER BY n.seg) = 1;

UPDATE t_collective_arrivals SET after_category = i.after_category FROM h_straggler_instances i
WHERE t_collective_arrivals.phase = i.phase AND t_collective_arrivals.phase_index = i.phase_index
  AND t_collective_arrivals.type = i.type AND t_collective_arrivals.k = i.k;
