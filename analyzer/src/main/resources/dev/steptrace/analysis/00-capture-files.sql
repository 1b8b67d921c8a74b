-- Stage 00, the capture's files (every later stage reads the capture's rows through t_files).
-- Parameters (DuckDB variables): capture_id
-- Reads:  capture_files (store view)
-- Writes: t_files(file_id, rank)
-- Portability: getvariable is DuckDB's.

CREATE OR REPLACE TEMP TABLE t_files AS
SELECT file_id, rank FROM capture_files WHERE capture_id = getvariable('capture_id');
