-- Stage 02, devices (rank-local): the GPU model each file's work ran on. Per file and device id its
-- GPU operations ran on (sync records excluded): the device's name, and how it was found:
--   how = 'listed':     the file's device list has a row with that id;
--   how = 'only_model': no row has that id, but every row names the same model, so the work ran on that
--                       model (a guess: ROCm traces number the devices the kernels ran on, e.g. 9,
--                       differently from torch's deviceProperties, 0 for the first visible GPU);
--   how = NULL, name NULL: no row has that id and the rows name several models (or none).
-- Reads:  gpu_ops, devices (store); t_files
-- Writes: t_devices(file_id, rank, device, name, how)
-- Portability: USING joins are DuckDB's shorthand; the rest is plain SQL.

CREATE OR REPLACE TEMP TABLE t_devices AS
WITH used AS (
    SELECT DISTINCT g.file_id, g.device FROM gpu_ops g JOIN t_files USING (file_id)
    WHERE g.device IS NOT NULL AND g.kind <> 'sync'
), listed AS (
    SELECT file_id, count(DISTINCT name) AS models, min(name) AS name
    FROM devices JOIN t_files USING (file_id) WHERE name IS NOT NULL GROUP BY file_id
)
SELECT u.file_id, f.rank, u.device,
       coalesce(d.name, CASE WHEN l.models = 1 THEN l.name END) AS name,
       CASE WHEN d.name IS NOT NULL THEN 'listed' WHEN l.models = 1 THEN 'only_model' END AS how
FROM used u JOIN t_files f USING (file_id)
LEFT JOIN devices d ON d.file_id = u.file_id AND d.device_id = u.device
LEFT JOIN listed l ON l.file_id = u.file_id;
