-- Stage 90, keep the analysis: the temp tables copied into the store's analysis tables
-- (docs/schema.md, "The analysis") under the capture and analysis key, in the transaction that first
-- deleted the capture's rows under that key (CaptureAnalysis.persist, which then keeps the critical paths,
-- analysis_warnings and, last, the analyses row: stage 91). Steps, kernels, kernel work and operations are kept
-- only in steps with metrics; names are kept as text (a name id means nothing outside its file).
-- Parameters (DuckDB variables): capture_id, analysis_key, step_source
-- Reads:  names (store); t_steps, t_step_metrics, t_step_waits, t_step_overlap, t_step_host,
--         t_step_categories, t_step_names, t_classes, t_ops_core, t_collectives, t_devices,
--         t_collective_arrivals, t_launch_delays, t_replay_latencies, t_graph_replays, t_kernel_work, t_launch_ops,
--         t_file_checks, t_step_times, t_step_parts_by_category, t_host_syncs, t_idle_cpu_ops, t_kernel_contexts,
--         t_step_compile_events
-- Writes: steps, step_metrics, step_times, step_time_base, host_syncs, idle_cpu_ops,
--         step_categories, step_kernels, kernel_classes, context_ops, kernel_contexts, step_compile_events, collective_instances, rank_devices,
--         collective_arrivals, launch_delays, replay_latencies, graph_replays, kernel_work, op_shape_calls, file_checks
--         (store)
-- Portability: getvariable, USING joins, GROUP BY ALL and :: casts are DuckDB's.

INSERT INTO steps
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, s.file_id, m.rank, s.step, s.phase, m.phase_index, s.name, getvariable('step_source')::VARCHAR, s.step_number,
       s.cpu_start, s.cpu_end
FROM t_steps s JOIN t_step_metrics m USING (file_id, step);

INSERT INTO step_metrics
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, m.file_id, m.rank, m.step, m.phase, m.phase_index, m.gpu_start, m.gpu_end,
       m.kernel_ns, m.calls, m.span_ns, m.busy_ns, m.idle_ns, m.host_gap_ns, w.wait_ns, w.compute_ns,
       o.comm_ns, o.hidden_ns, h.launch_wait_ns
FROM t_step_metrics m JOIN t_step_waits w USING (file_id, step) JOIN t_step_overlap o USING (file_id, step)
JOIN t_step_host h USING (file_id, step);

INSERT INTO step_times
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, step, phase, phase_index, start_ns, end_ns, step_ns,
       launches, graph_launches
FROM t_step_times;

INSERT INTO step_time_base
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, step, phase, phase_index, part, ns
FROM t_step_parts_by_category;

INSERT INTO host_syncs
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, h.file_id, h.rank, h.step, h.phase, h.call, n.name, h.calls,
       h.call_ns, h.idle_ns
FROM t_host_syncs h LEFT JOIN names n ON n.file_id = h.file_id AND n.name_id = h.op_name_id;

INSERT INTO idle_cpu_ops
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, i.file_id, i.rank, i.phase, i.kind, n.name, i.calls, i.idle_ns
FROM t_idle_cpu_ops i JOIN names n USING (file_id, name_id);

INSERT INTO step_categories
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, step, phase, phase_index, category, subcategory, ns, ns / 1e6, calls
FROM t_step_categories;

INSERT INTO step_kernels
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, o.file_id, m.rank, o.step, m.phase, m.phase_index, n.name,
       o.kind::VARCHAR, o.variant, o.ns, o.calls
FROM t_step_names o JOIN t_step_metrics m USING (file_id, step) JOIN names n USING (file_id, name_id);

INSERT INTO kernel_classes
SELECT DISTINCT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, n.name, k.kind::VARCHAR, k.variant, k.category, k.subcategory,
       k.rule_id
FROM t_classes k JOIN names n USING (file_id, name_id);

INSERT INTO kernel_contexts
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, k.file_id, k.rank, k.phase, op.name,
       an.name, mo.name, n.name, k.kind::VARCHAR, k.variant, k.ns, k.calls
FROM t_kernel_contexts k
JOIN names n USING (file_id, name_id)
LEFT JOIN names op ON op.file_id = k.file_id AND op.name_id = k.op_name_id
LEFT JOIN names an ON an.file_id = k.file_id AND an.name_id = k.annotation_name_id
LEFT JOIN names mo ON mo.file_id = k.file_id AND mo.name_id = k.module_name_id;

INSERT INTO step_compile_events
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, step, phase, event, name,
       calls, ns
FROM t_step_compile_events;

INSERT INTO context_ops
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, o.file_id, m.rank, o.step, o.stream, o.ts_ns, n.name, o.kind::VARCHAR,
       o.variant
FROM t_ops_core o JOIN t_step_metrics m USING (file_id, step) JOIN names n USING (file_id, name_id)
WHERE o.variant > 0;

INSERT INTO collective_instances
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, instance, file_id, rank, step, phase, phase_index, type, k, ts_ns,
       dur_ns, dtype, group_size, msg_bytes, transfer_ns, wait_ns, after_category
FROM t_collectives;

INSERT INTO rank_devices
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, device, name, how FROM t_devices;

INSERT INTO collective_arrivals
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, instance, phase, phase_index, type, k, ranks, last_rank, last_file_id,
       last_step, last_ts_ns, transfer_ns, lateness_ns, wait_ns, after_category
FROM t_collective_arrivals;

INSERT INTO launch_delays
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, phase, category, ops, mean_ns, median_ns, p90_ns
FROM t_launch_delays;

INSERT INTO replay_latencies
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, launch_latency_ns, launch_samples,
       stream_gap_ns, stream_gap_samples
FROM t_replay_latencies;

INSERT INTO graph_replays
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, step, phase, correlation, start_ns, end_ns, gap_ns
FROM t_graph_replays;

INSERT INTO kernel_work
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, w.file_id, m.rank, w.step, m.phase, n.name, w.kind::VARCHAR, w.category,
       p.name, w.external_id, w.ts_ns, w.dur_ns, w.family, w.precision, w.flops, w.bytes
FROM t_kernel_work w JOIN t_step_metrics m USING (file_id, step) JOIN names n USING (file_id, name_id)
LEFT JOIN t_launch_ops l USING (file_id, external_id)
LEFT JOIN names p ON p.file_id = l.file_id AND p.name_id = l.name_id;

INSERT INTO op_shape_calls
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, l.file_id, m.rank, m.phase, n.name, l.shape_id, count(*)
FROM (SELECT * FROM t_launch_ops WHERE shape_id IS NOT NULL) l
-- Only the operations that ops with shapes launched are made distinct (none in a trace without shapes).
JOIN (SELECT DISTINCT o.file_id, o.external_id, o.step FROM t_ops_core o
      SEMI JOIN t_launch_ops s ON s.file_id = o.file_id AND s.external_id = o.external_id AND s.shape_id IS NOT NULL
      WHERE o.step IS NOT NULL) o
     USING (file_id, external_id)
JOIN t_step_metrics m USING (file_id, step)
JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id
GROUP BY ALL;

INSERT INTO file_checks
SELECT getvariable('capture_id')::INTEGER, getvariable('analysis_key')::VARCHAR, file_id, rank, ops, ops_ns, outside_ops,
       outside_ns, graph_launches, graph_launches_without_kernels, nvtx_note
FROM t_file_checks;
