-- Stage 11, steps from annotations (rank-local): each annotation whose name is a step (vLLM's, SGLang's,
-- ProfilerStep#N or --step-regex: t_annotation_steps, filled by StepDetector) is a step, unless it is
-- nested in another step annotation of the same file. Steps count from 0 in time order within a file.
-- Reads:  t_annot, t_annotation_steps(name, phase, step_number): phase from vLLM's counts (else NULL),
--         step_number from ProfilerStep#N (else NULL)
-- Writes: t_steps(file_id, step, name, phase, cpu_start, cpu_end, step_number)
-- Portability: USING joins and :: casts are DuckDB's shorthand; the rest is plain SQL.

CREATE OR REPLACE TEMP TABLE t_steps AS
WITH a AS (
    SELECT a.file_id, a.name, a.ts_ns, a.end_ns, s.phase, s.step_number
    FROM t_annot a JOIN t_annotation_steps s USING (name)
), outer_only AS (
    SELECT * FROM a
    WHERE NOT EXISTS (
        SELECT 1 FROM a b
        WHERE b.file_id = a.file_id AND b.ts_ns <= a.ts_ns AND b.end_ns >= a.end_ns
          AND (b.ts_ns < a.ts_ns OR b.end_ns > a.end_ns))
)
SELECT file_id, (row_number() OVER (PARTITION BY file_id ORDER BY ts_ns) - 1)::INTEGER AS step,
       name, phase, ts_ns AS cpu_start, end_ns AS cpu_end, step_number
FROM outer_only;
