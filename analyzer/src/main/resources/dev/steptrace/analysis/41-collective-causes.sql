-- Stage 41, what each rank was busy with before each of its collectives (rank-local). For every collective
-- kernel of a step: after_category, the category with the most time on the rank since its previous
-- collective of the step (since the step's start for the first). Where the rank arrived last at a matched
-- instance, this is what the straggler was doing while the others waited (collective_arrivals, docs/reports.md
-- "Stragglers"); it is made for every instance because a rank alone cannot know where it will be late.
-- Reads:  t_ops_core, t_classes, t_files
-- Writes: h_collective_causes(file_id, step, ts_ns, after_category): one row per collective start time
--         of a file's step (kernels of one start share the first one's previous segment)
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: arg_max, unnest, the slice and category macros (macros.sql) and GROUP BY ALL are DuckDB's (Spark SQL:
-- max_by, explode(sequence(...)), div).

-- The segments: for each collective start of a step, the time since the step's previous one (since the
-- step's first operation for the first), [previous start, start). An operation at the very time of a
-- start comes after it. Each operation finds its segment by an equi-join on (file, step, slice of the
-- file's time), the segments listed by the slices they touch (about twice as many slices as segments),
-- and only the few segments of its slice compared: numbering the segments by a running count over the
-- operations in time order sorted them all, the costliest part of this stage (docs/performance.md,
-- "The analysis after ingest"). Categories travel as their rank among the classes' categories, their
-- names joined at the end.
CREATE OR REPLACE TEMP TABLE h_collective_causes AS
WITH classes AS (
    SELECT file_id, name_id, kind, variant, category, collective_category(category) AS comm,
           dense_rank() OVER (ORDER BY category) AS category_no
    FROM t_classes
), ops AS (
    SELECT o.file_id, o.step, o.ts_ns, o.dur_ns, k.category_no, k.comm
    FROM t_ops_core o JOIN classes k USING (file_id, name_id, kind, variant)
    WHERE o.step IS NOT NULL AND in_batch(o.file_id)
), starts AS (
    SELECT DISTINCT file_id, step, ts_ns FROM ops WHERE comm
), segments AS (
    SELECT s.file_id, s.step, s.ts_ns AS seg_end,
           coalesce(lag(s.ts_ns) OVER (PARTITION BY s.file_id, s.step ORDER BY s.ts_ns), f.first_ns) AS seg_start
    FROM starts s
    JOIN (SELECT file_id, step, min(ts_ns) AS first_ns FROM ops GROUP BY file_id, step) f USING (file_id, step)
), slicing AS (
    SELECT file_id, min(seg_start) AS origin,
           slice_width(min(seg_start), max(seg_end), count(*)) AS width
    FROM segments GROUP BY file_id
), sliced AS (
    SELECT s.file_id, s.step, s.seg_start, s.seg_end,
           unnest(slices_of(s.seg_start, s.seg_end, l.origin, l.width)) AS slice
    FROM segments s JOIN slicing l USING (file_id)
    WHERE s.seg_end > s.seg_start
), seg_category AS (
    SELECT file_id, step, seg_end, arg_max(category_no, ns) AS category_no
    FROM (SELECT g.file_id, g.step, g.seg_end, o.category_no, sum(o.dur_ns) AS ns
          FROM (SELECT o.file_id, o.step, o.ts_ns, o.dur_ns, o.category_no, slice_of(o.ts_ns, l.origin, l.width) AS slice
                FROM ops o JOIN slicing l USING (file_id) WHERE NOT o.comm) o
          JOIN sliced g ON g.file_id = o.file_id AND g.step = o.step AND g.slice = o.slice
          WHERE o.ts_ns >= g.seg_start AND o.ts_ns < g.seg_end
          GROUP BY ALL)
    GROUP BY ALL
)
SELECT n.file_id, n.step, n.ts_ns, c.category AS after_category
FROM starts n
LEFT JOIN seg_category sc ON sc.file_id = n.file_id AND sc.step = n.step AND sc.seg_end = n.ts_ns
LEFT JOIN (SELECT DISTINCT category_no, category FROM classes) c ON c.category_no = sc.category_no;
