-- Whether the store keeps an analysis of the capture under a key made from its current files by this build with
-- this taxonomy (docs/architecture.md, "Report, step by step"): its step source; no row when it keeps none (or a
-- stale one, to be made again).
-- Parameters: capture_id, analysis_key, files_key (StoreCaptures.filesKey), taxonomy_digest, build
-- Reads:   analyses
-- Returns: step_source
-- Portability: getvariable is DuckDB's.
SELECT step_source
FROM analyses
WHERE capture_id = getvariable('capture_id') AND analysis_key = getvariable('analysis_key')
  AND files_key = getvariable('files_key') AND taxonomy_digest = getvariable('taxonomy_digest')
  AND build = getvariable('build');
