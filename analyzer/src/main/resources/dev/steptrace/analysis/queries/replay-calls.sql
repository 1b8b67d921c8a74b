-- One rank's CPU calls for a replay of its steps (docs/whatif.md): the launch calls of its GPU operations and
-- its host-sync calls (host_syncs, a comma-separated list of names) from its first step's start to its last
-- step's end, in time order, with the thread, and whether each replays a CUDA graph (graph_launches, a list).
-- Parameters: capture_id, analysis_key, file_id, host_syncs, graph_launches
-- Reads:   launches, names, gpu_ops (store); step_times
-- Returns: tid, ts_ns, dur_ns, correlation, sync, graph
-- Portability: getvariable, string_split and list_contains are DuckDB's.
WITH span AS (
    SELECT min(start_ns) AS lo, max(end_ns) AS hi FROM step_times
    WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
      AND file_id = getvariable('file_id')
), launched AS (
    SELECT DISTINCT correlation FROM gpu_ops WHERE file_id = getvariable('file_id') AND correlation IS NOT NULL
)
SELECT l.tid, l.ts_ns, l.dur_ns, l.correlation,
       list_contains(string_split(getvariable('host_syncs'), ','), n.name) AS sync,
       list_contains(string_split(getvariable('graph_launches'), ','), n.name) AS graph
FROM launches l JOIN names n USING (file_id, name_id)
WHERE l.file_id = getvariable('file_id')
  AND (list_contains(string_split(getvariable('host_syncs'), ','), n.name) OR l.correlation IN (SELECT correlation FROM launched))
  AND l.ts_ns + l.dur_ns >= (SELECT lo FROM span) AND l.ts_ns <= (SELECT hi FROM span)
ORDER BY l.ts_ns, l.tid
