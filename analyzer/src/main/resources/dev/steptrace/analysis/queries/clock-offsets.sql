-- Rank clock offsets from collective instances (docs/timeline.md, "Clock alignment"; rule clock_offset of
-- docs/warnings.md). A symmetric collective (all-reduce, all-gather, reduce-scatter) ends on every rank at the same
-- moment: its kernels spin until the last peer arrives, then finish the transfer together. So, for each instance
-- matched on every rank, a rank's end time minus the instance's median end over ranks is its clock's offset plus
-- noise; the median over instances is the estimate, and the spread of the per-instance values (10th to 90th
-- percentile) says how well the instances agree. Rooted and point-to-point collectives do not end together and
-- are left out.
-- Parameters: capture_id, analysis_key; phase (NULL: every phase), phase_indexes (the phase's steps to use, a
--          list; NULL: all)
-- Reads:   collective_instances
-- Returns: rank, offset_ns (what its clock reads beyond the median rank's), instances, p10_ns, p90_ns
-- Portability: getvariable, list_contains, quantile_cont with a list and IS NOT DISTINCT FROM are DuckDB's.
WITH inst AS (
    SELECT rank, phase, phase_index, type, k, ts_ns + dur_ns AS end_ns
    FROM collective_instances
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND transfer_ns IS NOT NULL AND type IN ('allreduce', 'all_gather', 'reduce_scatter')
      AND (getvariable('phase') IS NULL OR phase = getvariable('phase'))
      AND (getvariable('phase_indexes') IS NULL
           OR list_contains(getvariable('phase_indexes')::INTEGER[], phase_index))
), rel AS (
    -- From the instance's first end: epoch nanoseconds are beyond a double's precision, which median() computes
    -- in. Per instance by GROUP BY and a join, not by windows: a window over as many partitions as instances
    -- costs several times more.
    SELECT c.rank, c.phase, c.phase_index, c.type, c.k, c.end_ns - f.first_end AS e
    FROM inst c JOIN (SELECT phase, phase_index, type, k, min(end_ns) AS first_end FROM inst
                      GROUP BY phase, phase_index, type, k) f
         ON f.phase IS NOT DISTINCT FROM c.phase AND f.phase_index IS NOT DISTINCT FROM c.phase_index
        AND f.type = c.type AND f.k IS NOT DISTINCT FROM c.k
), ends AS (
    SELECT r.rank, r.e - m.mid AS d
    FROM rel r JOIN (SELECT phase, phase_index, type, k, median(e) AS mid FROM rel
                     GROUP BY phase, phase_index, type, k) m
         ON m.phase IS NOT DISTINCT FROM r.phase AND m.phase_index IS NOT DISTINCT FROM r.phase_index
        AND m.type = r.type AND m.k IS NOT DISTINCT FROM r.k
)
-- The three quantiles from one aggregate: DuckDB keeps each quantile's values outside its memory limit, once per
-- aggregate (docs/performance.md); the median is the 0.5 quantile, interpolated alike.
SELECT rank, round(q[1])::BIGINT AS offset_ns, n AS instances, round(q[2])::BIGINT AS p10_ns,
       round(q[3])::BIGINT AS p90_ns
FROM (SELECT rank, quantile_cont(d, [0.5, 0.1, 0.9]) AS q, count(*) AS n FROM ends GROUP BY rank)
ORDER BY rank;
