-- Convenience views for `steptrace query` and notebooks: event rows with their names, rank and capture.
-- Replaced on every open, so they always match the running version.

-- The files of every capture: a run's (files.capture_id), or the one file of a capture taken alone.
CREATE OR REPLACE VIEW capture_files AS
SELECT c.capture_id, f.file_id, f.rank, f.path
FROM captures c JOIN files f ON f.capture_id = c.capture_id
WHERE c.single_file_id IS NULL
UNION ALL
SELECT c.capture_id, f.file_id, f.rank, f.path
FROM captures c JOIN files f ON f.file_id = c.single_file_id;

-- The distinct event names across the store.
CREATE OR REPLACE VIEW event_names AS
SELECT DISTINCT name FROM names;

-- Every GPU operation with its name, rank and capture.
CREATE OR REPLACE VIEW gpu_events AS
SELECT f.capture_id, g.file_id, f.rank, g.kind, n.name, g.device, g.stream,
       g.ts_ns, g.dur_ns, g.ts_ns + g.dur_ns AS end_ns, g.correlation, g.external_id, g.bytes,
       g.graph_id, g.graph_node_id, g.grid_x, g.grid_y, g.grid_z, g.block_x, g.block_y, g.block_z
FROM gpu_ops g
JOIN files f USING (file_id)
JOIN names n ON n.file_id = g.file_id AND n.name_id = g.name_id;

-- The kernels among them.
CREATE OR REPLACE VIEW kernels AS
SELECT * EXCLUDE (kind, bytes) FROM gpu_events WHERE kind = 'kernel';

-- Every CPU op and annotation with its name, rank and capture.
CREATE OR REPLACE VIEW cpu_events AS
SELECT f.capture_id, c.file_id, f.rank, c.kind, n.name, c.pid, c.tid,
       c.ts_ns, c.dur_ns, c.ts_ns + c.dur_ns AS end_ns, c.external_id
FROM cpu_ops c
JOIN files f USING (file_id)
JOIN names n ON n.file_id = c.file_id AND n.name_id = c.name_id;

-- Every runtime and driver call with its name, rank and capture.
CREATE OR REPLACE VIEW runtime_calls AS
SELECT f.capture_id, l.file_id, f.rank, l.kind, n.name, l.pid, l.tid,
       l.ts_ns, l.dur_ns, l.ts_ns + l.dur_ns AS end_ns, l.correlation, l.external_id, l.cbid
FROM launches l
JOIN files f USING (file_id)
JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id;

-- CPU ops with the input shapes they recorded (record_shapes), e.g. every aten::mm's operand dims.
CREATE OR REPLACE VIEW cpu_op_shapes AS
SELECT f.capture_id, c.file_id, f.rank, n.name, c.pid, c.tid, c.ts_ns, c.dur_ns, c.external_id,
       s.input_dims, s.input_types, s.input_strides, s.concrete_inputs
FROM cpu_ops c
JOIN files f USING (file_id)
JOIN names n ON n.file_id = c.file_id AND n.name_id = c.name_id
JOIN op_shapes s ON s.file_id = c.file_id AND s.shape_id = c.shape_id;

-- Per step and part: each step's time as parts that sum to step_times.step_ns (docs/reports.md, "Step time"):
-- GPU work by category, exposed communication (comm_wait, comm_allreduce, comm_other) and GPU idle by cause
-- (idle_*). The waits of a step's collective instances (collective_instances.wait_ns, the time beyond the
-- fastest rank's) count as exposed first: per collective kind, comm_wait takes the smaller of their sum and the
-- kind's exposed time in step_time_base, the kind keeps the rest. A view, so that the waits come from wherever
-- the capture's collectives were matched: the analysis, or the Spark application (docs/spark.md). Plain SQL.
CREATE OR REPLACE VIEW step_time_parts AS
WITH waits AS (
    SELECT capture_id, analysis_key, file_id, step,
           CASE WHEN type = 'allreduce' THEN 'comm_allreduce' ELSE 'comm_other' END AS part, sum(wait_ns) AS wait_ns
    FROM collective_instances WHERE wait_ns > 0
    GROUP BY capture_id, analysis_key, file_id, step, CASE WHEN type = 'allreduce' THEN 'comm_allreduce' ELSE 'comm_other' END
), parts AS (
    SELECT b.capture_id, b.analysis_key, b.file_id, b.rank, b.step, b.phase, b.phase_index, b.part, b.ns,
           CASE WHEN w.wait_ns IS NULL THEN 0 WHEN w.wait_ns < b.ns THEN w.wait_ns ELSE b.ns END AS waited
    FROM step_time_base b
    LEFT JOIN waits w ON w.capture_id = b.capture_id AND w.analysis_key = b.analysis_key AND w.file_id = b.file_id
         AND w.step = b.step AND w.part = b.part
)
SELECT capture_id, analysis_key, file_id, rank, step, phase, phase_index, part, ns - waited AS ns FROM parts WHERE ns > waited
UNION ALL
SELECT capture_id, analysis_key, file_id, rank, step, phase, phase_index, 'comm_wait', sum(waited)::BIGINT FROM parts
GROUP BY capture_id, analysis_key, file_id, rank, step, phase, phase_index HAVING sum(waited) > 0;

-- Per step and part: each step's critical path on its rank (docs/whatif.md, "Critical path") as parts that sum to
-- step_times.step_ns, the collectives' waits split off as comm_wait: of each collective operation on the path, the
-- smaller of its time there and its instance's wait (collective_instances.wait_ns) is waiting, the rest transfer.
-- A view for the reason step_time_parts is one. Plain SQL.
CREATE OR REPLACE VIEW critical_path AS
WITH parts AS (
    SELECT b.capture_id, b.analysis_key, b.file_id, b.rank, b.step, b.phase, b.phase_index, b.part, b.ns,
           CASE WHEN i.wait_ns IS NULL THEN 0 WHEN i.wait_ns < b.ns THEN i.wait_ns ELSE b.ns END AS waited
    FROM critical_path_base b
    LEFT JOIN (SELECT capture_id, analysis_key, file_id, ts_ns, max(wait_ns) AS wait_ns FROM collective_instances
               GROUP BY capture_id, analysis_key, file_id, ts_ns) i
         ON i.capture_id = b.capture_id AND i.analysis_key = b.analysis_key AND i.file_id = b.file_id
         AND i.ts_ns = b.op_ts_ns
), split AS (
    SELECT capture_id, analysis_key, file_id, rank, step, phase, phase_index, part, ns - waited AS ns FROM parts
    UNION ALL
    SELECT capture_id, analysis_key, file_id, rank, step, phase, phase_index, 'comm_wait', waited FROM parts
)
SELECT capture_id, analysis_key, file_id, rank, step, phase, phase_index, part, sum(ns)::BIGINT AS ns
FROM split GROUP BY capture_id, analysis_key, file_id, rank, step, phase, phase_index, part HAVING sum(ns) > 0;
