-- One rank's CPU calls for a replay of some of its steps (docs/whatif.md): the launch calls of its GPU operations
-- and its host-sync calls (host_syncs, a comma-separated list of names) that end at from_ns or later and start at
-- to_ns or earlier (the steps' span), in time order (at one time the launches first, then by thread), with the
-- thread, and whether each replays a CUDA graph (graph_launches, a list).
-- Parameters: file_id, from_ns, to_ns, host_syncs, graph_launches
-- Reads:   launches, names, gpu_ops (store)
-- Returns: tid, ts_ns, dur_ns, correlation, sync, graph
-- Portability: getvariable, string_split and list_contains are DuckDB's.
WITH calls AS (
    SELECT * FROM launches
    WHERE file_id = getvariable('file_id') AND ts_ns + dur_ns >= getvariable('from_ns') AND ts_ns <= getvariable('to_ns')
), launched AS (
    -- an operation starts after its launch call; the span's calls' correlations bound the search (they grow with
    -- time, so the store's row groups outside them are skipped)
    SELECT DISTINCT correlation FROM gpu_ops
    WHERE file_id = getvariable('file_id') AND ts_ns >= getvariable('from_ns')
      AND correlation BETWEEN (SELECT min(correlation) FROM calls) AND (SELECT max(correlation) FROM calls)
)
SELECT l.tid, l.ts_ns, l.dur_ns, l.correlation,
       list_contains(string_split(getvariable('host_syncs'), ','), n.name) AS sync,
       list_contains(string_split(getvariable('graph_launches'), ','), n.name) AS graph
FROM calls l JOIN names n USING (file_id, name_id)
WHERE (list_contains(string_split(getvariable('host_syncs'), ','), n.name) OR l.correlation IN (SELECT correlation FROM launched))
ORDER BY l.ts_ns, sync, l.tid
