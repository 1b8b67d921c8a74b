-- Stage 13, steps from CUDA graph launches (rank-local): each graph launch is a step, up to the file's
-- next one (the last up to the file's last event). Empty when the capture has no graph launch.
-- Parameters (DuckDB variables): graph_launches, the runtime calls that replay a CUDA/HIP graph
-- Reads:  launches, files, names (store); t_files
-- Writes: t_steps(file_id, step, name, phase, cpu_start, cpu_end, step_number) (phase and step_number NULL)
-- Portability: getvariable, list_contains, named windows and :: casts are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_steps AS
SELECT l.file_id, (row_number() OVER w - 1)::INTEGER AS step, n.name, NULL::VARCHAR AS phase,
       l.ts_ns AS cpu_start, coalesce(lead(l.ts_ns) OVER w, f.last_ts_ns + 1) AS cpu_end,
       NULL::BIGINT AS step_number
FROM launches l JOIN t_files USING (file_id) JOIN files f USING (file_id)
JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id
WHERE list_contains(getvariable('graph_launches'), n.name)
WINDOW w AS (PARTITION BY l.file_id ORDER BY l.ts_ns);
