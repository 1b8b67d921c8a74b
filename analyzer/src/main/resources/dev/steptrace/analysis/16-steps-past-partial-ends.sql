-- Stage 16, steps past a partial file's end (rank-local): a file read only in part (files.status 'partial':
-- a trace cut short, or damaged) holds its rank's work up to where its events end; the steps after that are
-- not steps of the rank. Kineto writes a trace's CPU events before its GPU events, so a cut keeps every step
-- annotation and only the GPU work before it: read as steps, those past the cut would count as steps of
-- 0 ms and pull every mean over steps down. A partial file's work ends at its last launch call whose GPU
-- operation the file holds (same correlation), else, without one, at the end of its last GPU operation; a
-- step that starts after that is dropped, and a partial file with no GPU operation keeps no step. Not run
-- for steps made from GPU bursts (stage 14): those are the file's GPU work itself.
-- Reads:  files, gpu_ops, launches (store); t_files, t_steps
-- Writes: t_steps (the steps past the ends deleted);
--         helper h_partial_ends(file_id, end_ns): each partial file's end (NULL: no GPU operation)
-- Portability: USING joins are DuckDB's shorthand; the rest is plain SQL.

CREATE OR REPLACE TEMP TABLE h_partial_ends AS
WITH partial AS (
    SELECT t.file_id FROM t_files t JOIN files f USING (file_id) WHERE f.status = 'partial'
), launched AS (
    SELECT l.file_id, max(l.ts_ns) AS end_ns
    FROM launches l JOIN partial USING (file_id)
    WHERE EXISTS (SELECT 1 FROM gpu_ops g WHERE g.file_id = l.file_id AND g.correlation = l.correlation)
    GROUP BY l.file_id
), gpu AS (
    SELECT g.file_id, max(g.ts_ns + g.dur_ns) AS end_ns FROM gpu_ops g JOIN partial USING (file_id) GROUP BY g.file_id
)
SELECT p.file_id, coalesce(l.end_ns, g.end_ns) AS end_ns
FROM partial p LEFT JOIN launched l USING (file_id) LEFT JOIN gpu g USING (file_id);

DELETE FROM t_steps
WHERE file_id IN (SELECT file_id FROM h_partial_ends)
  AND cpu_start > coalesce((SELECT e.end_ns FROM h_partial_ends e WHERE e.file_id = t_steps.file_id), -1);
