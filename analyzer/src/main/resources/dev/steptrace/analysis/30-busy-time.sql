-- Stage 30, busy time (rank-local): per step, the time at least one GPU operation runs, on any stream:
-- the length of the union of the step's operations' intervals.
-- Reads:  t_ops_core, t_windows, t_files
-- Writes: t_step_busy(file_id, step, busy_ns)
-- Per batch: its statements that call in_batch run once per batch of the capture's files (SqlStage).
-- Portability: plain SQL (window functions).

CREATE OR REPLACE TEMP TABLE t_step_busy AS
WITH shift AS (
    -- Each step moved later by the overlaps of the steps before it: then no earlier step's operation
    -- ends after a later step's first one starts.
    SELECT file_id, step,
           CAST(sum(greatest(0, earlier_end - gpu_start)) OVER (PARTITION BY file_id ORDER BY step
                                                            ROWS UNBOUNDED PRECEDING) AS BIGINT) AS shift_ns
    FROM (SELECT file_id, step, gpu_start,
                 max(gpu_end) OVER (PARTITION BY file_id ORDER BY step
                                    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
          FROM t_windows WHERE in_batch(file_id)) w
), shifted AS (
    SELECT o.file_id, o.step, o.ts_ns + s.shift_ns AS ts_ns, o.ts_ns + o.dur_ns + s.shift_ns AS end_ns
    FROM t_ops_core o JOIN shift s ON s.file_id = o.file_id AND s.step = o.step
    WHERE in_batch(o.file_id)
), ordered AS (
    -- The latest end before each operation of its step. One window per file, not per step (many small
    -- partitions cost twice as much): shifted, and durations never negative, the steps follow one
    -- another in time, and the ends of earlier steps are never after the operation's start, so they
    -- change nothing below.
    SELECT file_id, step, ts_ns, end_ns,
           max(end_ns) OVER (PARTITION BY file_id ORDER BY ts_ns
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
    FROM shifted
)
-- union of intervals: each operation adds what extends past everything before it
SELECT file_id, step, CAST(sum(greatest(0, end_ns - greatest(ts_ns, coalesce(prev_end, ts_ns)))) AS BIGINT) AS busy_ns
FROM ordered GROUP BY file_id, step;
