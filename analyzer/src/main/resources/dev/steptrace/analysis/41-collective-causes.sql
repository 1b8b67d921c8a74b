-- Stage 41, what each rank was busy with before each of its collectives (rank-local). For every collective
-- kernel of a step: after_category, the category with the most time on the rank since its previous
-- collective of the step (since the step's start for the first). Where the rank arrived last at a matched
-- instance, this is what the straggler was doing while the others waited (collective_arrivals, docs/reports.md
-- "Stragglers"); it is made for every instance because a rank alone cannot know where it will be late.
-- Reads:  t_ops_core, t_classes
-- Writes: h_collective_causes(file_id, step, ts_ns, after_category): one row per collective start time
--         of a file's step (kernels of one start share the first one's previous segment)
-- Portability: arg_max and GROUP BY ALL are DuckDB's (Spark SQL: max_by).

-- The window that numbers the segments sorts every operation: it carries numbers only (the category as
-- its rank among the classes' categories, its name joined back at the end), which makes it cheaper
-- than a sort with the category's string (docs/performance.md, "The analysis after ingest").
CREATE OR REPLACE TEMP TABLE h_collective_causes AS
WITH classes AS (
    SELECT file_id, name_id, kind, variant, category, category IN ('allreduce', 'comm_other') AS comm,
           dense_rank() OVER (ORDER BY category) AS category_no
    FROM t_classes
), numbered AS (
    -- seg: collectives started so far; the work between two collectives shares one value
    -- (a running sum, not count(*) FILTER: DuckDB evaluates a filtered running count row by row over all
    -- the rows before, quadratic in a file's operations: 5 minutes for 2 x 1 GB, docs/performance.md)
    SELECT o.file_id, o.step, o.ts_ns, o.dur_ns, k.category_no, k.comm,
           sum(k.comm::INTEGER) OVER (PARTITION BY o.file_id ORDER BY o.step, o.ts_ns, k.comm DESC
                                      ROWS UNBOUNDED PRECEDING) AS seg
    FROM t_ops_core o JOIN classes k USING (file_id, name_id, kind, variant)
    WHERE o.step IS NOT NULL
), seg_category AS (
    SELECT file_id, step, seg, arg_max(category_no, ns) AS category_no
    FROM (SELECT file_id, step, seg, category_no, sum(dur_ns) AS ns FROM numbered WHERE NOT comm GROUP BY ALL)
    GROUP BY ALL
), starts AS (
    -- kernels of one start share the first one's segment
    SELECT file_id, step, ts_ns, min(seg) AS seg FROM numbered WHERE comm GROUP BY ALL
)
SELECT n.file_id, n.step, n.ts_ns, c.category AS after_category
FROM starts n
LEFT JOIN seg_category sc ON sc.file_id = n.file_id AND sc.step = n.step AND sc.seg = n.seg - 1
LEFT JOIN (SELECT DISTINCT category_no, category FROM classes) c ON c.category_no = sc.category_no;
