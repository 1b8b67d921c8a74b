-- Stage 91, the analyses row: from which files, options and build the analysis kept under the capture and
-- analysis key was made (docs/schema.md, "The analysis"). Written last, once stage 90, the critical paths and
-- the warnings are kept (CaptureAnalysis.persist): an analysis without its row is not found, and is replaced
-- by the next one made under its key.
-- Parameters (DuckDB variables): capture_id, analysis_key, step_source, taxonomy_digest, step_regex (NULL: none),
--   files_key, build, seconds (the analysis's time)
-- Reads:  nothing
-- Writes: analyses (store)
-- Portability: getvariable and :: casts are DuckDB's.

INSERT INTO analyses
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, getvariable('taxonomy_digest')::VARCHAR,
       getvariable('step_regex')::VARCHAR, getvariable('step_source')::VARCHAR, getvariable('files_key')::VARCHAR,
       getvariable('build')::VARCHAR, now()::TIMESTAMP, getvariable('seconds')::DOUBLE;
