-- Stage 41, what each rank was busy with before each of its collectives (rank-local). For every collective
-- kernel of a step: after_category, the category with the most time on the rank since its previous
-- collective of the step (since the step's start for the first). Where the rank arrived last at a matched
-- instance, this is what the straggler was doing while the others waited (collective_arrivals, docs/reports.md
-- "Stragglers"); it is made for every instance because a rank alone cannot know where it will be late.
-- Reads:  t_ops_core, t_classes
-- Writes: h_collective_causes(file_id, step, ts_ns, after_category): one row per collective start time
--         of a file's step (kernels of one start share the first one's previous segment)
-- Portability: QUALIFY, arg_max and GROUP BY ALL are DuckDB's (Spark SQL: a row_number() filter in a
-- subquery, max_by).

CREATE OR REPLACE TEMP TABLE h_collective_causes AS
WITH ops AS (
    SELECT o.file_id, o.step, o.ts_ns, o.dur_ns, k.category,
           k.category IN ('allreduce', 'comm_other') AS comm
    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind, variant)
    WHERE o.step IS NOT NULL
), numbered AS (
    -- seg: collectives started so far; the work between two collectives shares one value
    -- (a running sum, not count(*) FILTER: DuckDB evaluates a filtered running count row by row over all
    -- the rows before, quadratic in a file's operations: 5 minutes for 2 x 1 GB, docs/performance.md)
    SELECT *, sum(CASE WHEN comm THEN 1 ELSE 0 END) OVER (PARTITION BY file_id ORDER BY step, ts_ns, comm DESC
                                                          ROWS UNBOUNDED PRECEDING) AS seg
    FROM ops
), seg_category AS (
    SELECT file_id, step, seg, arg_max(category, ns) AS category
    FROM (SELECT file_id, step, seg, category, sum(dur_ns) AS ns FROM numbered WHERE NOT comm GROUP BY ALL)
    GROUP BY ALL
)
SELECT n.file_id, n.step, n.ts_ns, sc.category AS after_category
FROM numbered n
LEFT JOIN seg_category sc ON sc.file_id = n.file_id AND sc.step = n.step AND sc.seg = n.seg - 1
WHERE n.comm
QUALIFY row_number() OVER (PARTITION BY n.file_id, n.step, n.ts_ns ORDER BY n.seg) = 1;
