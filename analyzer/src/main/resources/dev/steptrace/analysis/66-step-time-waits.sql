-- Stage 66, step time's waits (needs the cross-rank waits, stage 43): the part of each step's exposed
-- communication spent waiting for the slowest rank moves from comm_allreduce / comm_other to comm_wait
-- (docs/reports.md, "Step time"). Per step and collective kind, the waits of the step's collective instances
-- (wait_ns: the time beyond the fastest rank's) count as exposed first: comm_wait takes the smaller of their
-- sum and the kind's exposed time, the kind keeps the rest. So a collective that runs alone, as in tensor-
-- parallel decode, splits exactly into its wait and its transfer; the parts still sum to the step time.
-- Reads:  t_step_parts_by_category (stage 65), t_collectives
-- Writes: t_step_time_parts(file_id, rank, step, phase, phase_index, part, ns)
-- Portability: plain SQL (Spark SQL runs it too, over the kept step_time_parts and collective_instances of
-- a capture whose ranks were analysed apart, docs/spark.md).

CREATE OR REPLACE TEMP TABLE t_step_time_parts AS
WITH waits AS (
    SELECT file_id, step, CASE WHEN type = 'allreduce' THEN 'comm_allreduce' ELSE 'comm_other' END AS part,
           sum(wait_ns) AS wait_ns
    FROM t_collectives WHERE wait_ns > 0
    GROUP BY file_id, step, CASE WHEN type = 'allreduce' THEN 'comm_allreduce' ELSE 'comm_other' END
), parts AS (
    SELECT p.file_id, p.rank, p.step, p.phase, p.phase_index, p.part, p.ns,
           CASE WHEN w.wait_ns IS NULL THEN 0 WHEN w.wait_ns < p.ns THEN w.wait_ns ELSE p.ns END AS waited
    FROM t_step_parts_by_category p
    LEFT JOIN waits w ON w.file_id = p.file_id AND w.step = p.step AND w.part = p.part
)
SELECT file_id, rank, step, phase, phase_index, part, ns - waited AS ns FROM parts WHERE ns > waited
UNION ALL
SELECT file_id, rank, step, phase, phase_index, 'comm_wait', sum(waited) FROM parts
GROUP BY file_id, rank, step, phase, phase_index HAVING sum(waited) > 0;
