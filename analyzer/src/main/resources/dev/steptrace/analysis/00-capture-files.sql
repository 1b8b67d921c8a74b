-- Stage 00, the capture's files (every later stage reads the capture's rows through t_files), and the
-- batches of them that the costliest statements run for, one at a time (SqlStage; the stages' headers say
-- "Per batch").
-- Parameters (DuckDB variables): capture_id; batch_ops, the GPU operations a batch holds about at most
-- Reads:  capture_files (store view), files (store: each file's counts of GPU operations)
-- Writes: t_files(file_id, rank); the variable file_batches, a list of [first file id, last file id]:
--         the capture's files in file order, cut where the operations of the files before reach the
--         next multiple of batch_ops (a batch holds at most batch_ops plus one file's operations; a file
--         larger than batch_ops is a batch of its own but for a smaller one before it); a batch is a range
--         of file ids, which may hold another capture's files: the statements keep to t_files' rows
-- Portability: getvariable, SET VARIABLE, // and lists are DuckDB's.

CREATE OR REPLACE TEMP TABLE t_files AS
SELECT file_id, rank FROM capture_files WHERE capture_id = getvariable('capture_id');

SET VARIABLE file_batches = (
    SELECT coalesce(list([first_file, last_file] ORDER BY first_file), [])
    FROM (SELECT min(file_id) AS first_file, max(file_id) AS last_file
          FROM (SELECT t.file_id,
                       coalesce(sum(coalesce(f.n_kernel, 0) + coalesce(f.n_memcpy, 0) + coalesce(f.n_memset, 0))
                                    OVER (ORDER BY t.file_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                           // getvariable('batch_ops') AS batch
                FROM t_files t LEFT JOIN files f USING (file_id))
          GROUP BY batch)
);
