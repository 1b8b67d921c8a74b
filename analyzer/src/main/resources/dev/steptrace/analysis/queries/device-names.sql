-- The GPU models the capture's work ran on, per file, as the analysis found them (stage 02-devices:
-- rank_devices), for the report's device list and the roofline's peaks (the first name of a file, should it use
-- several; rule unknown_device_peaks of docs/warnings.md). A file whose trace does not name the GPU, or that has no
-- GPU work, has a NULL name.
-- Parameters: capture_id, analysis_key
-- Reads:   capture_files (view), files, rank_devices
-- Returns: file_id, rank, name (distinct; a file's names in order, NULL last)
-- Portability: getvariable and NULLS LAST are DuckDB's.
SELECT DISTINCT m.file_id, f.rank, d.name
FROM capture_files m
JOIN files f USING (file_id)
LEFT JOIN rank_devices d ON d.file_id = m.file_id AND d.capture_id = m.capture_id
                        AND d.analysis_key = getvariable('analysis_key')
WHERE m.capture_id = getvariable('capture_id')
ORDER BY m.file_id, d.name NULLS LAST;
