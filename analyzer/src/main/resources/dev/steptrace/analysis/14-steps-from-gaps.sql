-- Stage 14, steps from idle gaps (rank-local; the last step source): bursts of GPU work. A new step
-- starts after an idle gap longer than max(200 µs, 10 x the file's median gap between consecutive GPU
-- operations); a gap is measured from the latest end so far, so overlapping streams make no gap.
-- Reads:  gpu_ops (store); t_files
-- Writes: t_steps(file_id, step, name, phase, cpu_start, cpu_end, step_number): name 'gpu burst N',
--         the step's range from its first operation's start to one past its last end (phase and
--         step_number NULL)
-- Portability: quantile_cont, greatest and :: casts are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_steps AS
WITH o AS (
    SELECT g.file_id, g.ts_ns, g.ts_ns + g.dur_ns AS end_ns
    FROM gpu_ops g JOIN t_files USING (file_id) WHERE g.kind <> 'sync'
), gaps AS (
    SELECT file_id, ts_ns, end_ns,
           ts_ns - max(end_ns) OVER (PARTITION BY file_id ORDER BY ts_ns, end_ns
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS gap
    FROM o
), threshold AS (
    SELECT file_id, greatest(200000, 10 * quantile_cont(greatest(gap, 0), 0.5)) AS t
    FROM gaps WHERE gap IS NOT NULL GROUP BY file_id
), marked AS (
    SELECT g.file_id, g.ts_ns, g.end_ns,
           sum(CASE WHEN g.gap IS NULL OR g.gap > coalesce(t.t, 200000) THEN 1 ELSE 0 END)
               OVER (PARTITION BY g.file_id ORDER BY g.ts_ns, g.end_ns ROWS UNBOUNDED PRECEDING) AS burst
    FROM gaps g LEFT JOIN threshold t USING (file_id)
)
SELECT file_id, (burst - 1)::INTEGER AS step, 'gpu burst ' || burst AS name, NULL::VARCHAR AS phase,
       min(ts_ns) AS cpu_start, max(end_ns) + 1 AS cpu_end, NULL::BIGINT AS step_number
FROM marked GROUP BY file_id, burst;
