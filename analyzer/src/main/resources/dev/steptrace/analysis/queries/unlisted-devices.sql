-- The files whose GPU work ran on device ids their trace's device list does not have (stage 02-devices, how not
-- 'listed'; rules device_guessed and device_unknown of docs/warnings.md): per file, those ids, the model taken
-- (how 'only_model': the only model the list names) or none (how NULL), and the ids the list has.
-- Parameters: capture_id, analysis_key
-- Reads:   rank_devices, devices
-- Returns: rank, file_id, devices (the ids, in order), name, how, listed (the list's ids with a name; NULL: none)
-- Portability: getvariable, string_agg with ORDER BY and IS DISTINCT FROM are DuckDB's.
WITH listed AS (
    SELECT file_id, string_agg(DISTINCT device_id::VARCHAR, ', ' ORDER BY device_id::VARCHAR) AS ids
    FROM devices WHERE name IS NOT NULL GROUP BY file_id
)
SELECT r.rank, r.file_id, string_agg(r.device::VARCHAR, ', ' ORDER BY r.device) AS devices, any_value(r.name) AS name,
       any_value(r.how) AS how, any_value(l.ids) AS listed
FROM rank_devices r LEFT JOIN listed l USING (file_id)
WHERE r.capture_id = getvariable('capture_id') AND r.analysis_key = getvariable('analysis_key')
  AND r.how IS DISTINCT FROM 'listed'
GROUP BY r.rank, r.file_id, r.how
ORDER BY r.rank, r.file_id, r.how;
