-- Stage 10, step annotations (rank-local): the CPU events step annotations are among, and an empty table
-- of notes on step sources (why a source the capture has was not used, for the capture-quality
-- warnings). Which annotation names are steps is settled in Java (StepDetector: the built-in patterns and
-- --step-regex share Java's regex semantics), on the distinct names of t_annot.
-- Reads:  cpu_ops, names (store); t_files
-- Writes: t_annot(file_id, name, pid, tid, ts_ns, end_ns): user annotations and torch's ProfilerStep#N
--             ops (the condition is StepSource.ANNOTATIONS, which other readers of annotations use);
--         t_step_notes(file_id, code, message), t_annotation_steps(name, phase, step_number) and
--             t_phase_hints(name, hint), empty: StepDetector fills the last two
-- Portability: USING joins are DuckDB's shorthand; the rest is plain SQL.

CREATE OR REPLACE TEMP TABLE t_step_notes (file_id INTEGER, code VARCHAR, message VARCHAR);

CREATE OR REPLACE TEMP TABLE t_annotation_steps (name VARCHAR, phase VARCHAR, step_number BIGINT);

CREATE OR REPLACE TEMP TABLE t_phase_hints (name VARCHAR, hint VARCHAR);

CREATE OR REPLACE TEMP TABLE t_annot AS
SELECT o.file_id, n.name, o.pid, o.tid, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns
FROM cpu_ops o
JOIN t_files USING (file_id)
JOIN names n ON n.file_id = o.file_id AND n.name_id = o.name_id
WHERE (o.kind = 'user_annotation' OR (o.kind = 'cpu_op' AND n.name LIKE 'ProfilerStep#%'));
