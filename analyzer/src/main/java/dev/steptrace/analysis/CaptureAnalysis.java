package dev.steptrace.analysis;

import dev.steptrace.classify.StoreClassifier;
import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.roofline.KernelWork;
import dev.steptrace.store.Sql;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import dev.steptrace.store.StoreCaptures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One capture's analysis, made in temp tables of a connection of its own (fast to build, gone when it
 * closes), and {@link #persist kept} in the store's analysis tables (docs/schema.md, "The analysis"),
 * replacing the rows of the same capture and analysis key, in one transaction. Everything downstream
 * (report, diff, decision memo, timeline, API) reads the store tables ({@link StoredAnalysis}).
 *
 * <table>
 *   <caption>Temp tables, and the store tables they are copied into</caption>
 *   <tr><td>{@code t_devices}</td><td>per file and device id its GPU work ran on: the device's name, and how
 *       it was found ({@link CaptureDevices})</td><td>{@code rank_devices}</td></tr>
 *   <tr><td>{@code t_steps}</td><td>steps per file: name, phase, CPU range</td><td>{@code steps}</td></tr>
 *   <tr><td>{@code t_classes}</td><td>category, subcategory and rule id of each (file, name, kind, variant):
 *       variant 0 is the name's class, others the classes {@link ContextClasses} gave some of its
 *       operations</td><td>{@code kernel_classes}</td></tr>
 *   <tr><td>{@code t_ops_core}</td><td>GPU operations with their step and class variant (ids and numbers
 *       only): not kept (the timeline gives the few steps it shows their operations again), but for the
 *       operations whose class came from their context</td><td>{@code context_ops}</td></tr>
 *   <tr><td>{@code t_step_metrics}, {@code t_step_waits}, {@code t_step_overlap}, {@code t_step_host}</td>
 *       <td>per step: kernel, span, busy, idle, host gap; collective wait and compute; communication and
 *       the part of it under other work; idle waiting for launches (ns)</td><td>{@code step_metrics}</td></tr>
 *   <tr><td>{@code t_step_categories}</td><td>per step and (sub)category: ns and calls</td>
 *       <td>{@code step_categories}</td></tr>
 *   <tr><td>{@code t_step_names}</td><td>per step, operation name (id) and class variant: ns and calls</td>
 *       <td>{@code step_kernels} (with the name)</td></tr>
 *   <tr><td>{@code t_collectives}</td><td>collective instances with message bytes, wait and transfer, what the
 *       rank did before each</td>
 *       <td>{@code collective_instances}</td></tr>
 *   <tr><td>{@code t_collective_arrivals}</td><td>per matched instance: the rank that arrived last, the
 *       others' wait</td><td>{@code collective_arrivals}</td></tr>
 *   <tr><td>{@code t_launch_delays}</td><td>per file, phase and category: eager launch delays (ns)</td>
 *       <td>{@code launch_delays}</td></tr>
 *   <tr><td>{@code t_graph_replays}</td><td>CUDA graph replays: GPU window, gap since the previous one (ns)</td>
 *       <td>{@code graph_replays}</td></tr>
 *   <tr><td>{@code t_kernel_work}</td><td>kernels with known work: FLOPs, bytes ({@link KernelWork})</td>
 *       <td>{@code kernel_work}</td></tr>
 *   <tr><td>{@code t_launch_ops}</td><td>the CPU ops that launched GPU work, with their shapes</td>
 *       <td>{@code op_shape_calls} (calls per phase and shapes)</td></tr>
 * </table>
 * Capture-quality warnings go to {@code analysis_warnings}, and a row of {@code analyses} records the
 * files, options and build the analysis was made from.
 */
public final class CaptureAnalysis implements AutoCloseable {
    private final Connection connection;
    private final CaptureScope scope;
    private final AnalysisKey key;
    private final StepSource stepSource;
    private final List<Warning> warnings;
    private final double seconds;
    private final boolean readOnly;

    private CaptureAnalysis(Connection connection, CaptureScope scope, AnalysisKey key, StepSource stepSource,
                            List<Warning> warnings, double seconds, boolean readOnly) {
        this.connection = connection;
        this.scope = scope;
        this.key = key;
        this.stepSource = stepSource;
        this.warnings = warnings;
        this.seconds = seconds;
        this.readOnly = readOnly;
    }

    /** Analyses a capture already in the store under {@code key}'s options, into temp tables. */
    public static CaptureAnalysis run(Store store, int captureId, AnalysisKey key) throws SQLException, StoreException {
        long t0 = System.nanoTime();
        StoreClassifier.classify(store, key.taxonomy());
        Connection c = store.newConnection();
        try {
            CaptureScope scope = CaptureScope.load(c, captureId);
            try (PreparedStatement ps = c.prepareStatement(
                    "CREATE OR REPLACE TEMP TABLE t_files AS SELECT file_id, rank FROM capture_files WHERE capture_id = ?")) {
                ps.setInt(1, captureId);
                ps.execute();
            }
            try (PreparedStatement ps = c.prepareStatement("""
                    CREATE OR REPLACE TEMP TABLE t_classes AS
                    SELECT o.file_id, o.name_id, o.kind,
                           coalesce(k.category, 'other') AS category,
                           coalesce(k.subcategory, 'unknown') AS subcategory,
                           coalesce(k.rule_id, 'other.unclassified') AS rule_id, 0::UTINYINT AS variant
                    FROM (SELECT DISTINCT file_id, name_id, kind FROM gpu_ops JOIN t_files USING (file_id)
                          WHERE kind <> 'sync') o
                    JOIN names n USING (file_id, name_id)
                    LEFT JOIN name_classes k ON k.name = n.name AND k.kind = o.kind::VARCHAR AND k.taxonomy_digest = ?
                    """)) {
                ps.setString(1, key.taxonomy().digest());
                ps.execute();
            }
            CaptureDevices.build(c);
            StepSource source = StepDetector.detect(c, key.stepRegex());
            StepAttribution.attribute(c, source);
            ContextClasses.refine(c, key.taxonomy());
            StepMetrics.build(c);
            CollectiveMetrics.build(c);
            OverlapMetrics.build(c);
            HostBoundMetrics.build(c);
            KernelWork.build(c);
            List<Warning> warnings = CaptureRules.check(c, scope, source, key.thresholds());
            return new CaptureAnalysis(c, scope, key, source, warnings, (System.nanoTime() - t0) / 1e9,
                    store.readOnly());
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    public CaptureScope scope() {
        return scope;
    }

    public StepSource stepSource() {
        return stepSource;
    }

    /** The analysis connection, for queries over the temp tables listed in the class comment. */
    public Connection connection() {
        return connection;
    }

    /**
     * Copies the temp tables into the store's analysis tables, replacing the rows of the same capture
     * and analysis key, in one transaction. A store that cannot be written gets them as temp tables of
     * the same names on this analysis's connection instead, which then reads as the store would (they
     * hide the store's own tables there): {@link #connection()} is what reads them.
     *
     * @param build the steptrace build, recorded in {@code analyses}
     */
    public void persist(String build) throws SQLException {
        Connection c = connection;
        int captureId = scope.captureId();
        String filesKey = StoreCaptures.filesKey(c, captureId);
        if (readOnly) {
            for (String table : StoreCaptures.ANALYSIS_TABLES) {
                Sql.exec(c, "CREATE OR REPLACE TEMP TABLE " + table + " AS SELECT * FROM " + table + " LIMIT 0");
            }
        }
        c.setAutoCommit(false);
        try {
            StoreCaptures.deleteAnalysis(c, captureId, key.id());
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO analyses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setInt(1, captureId);
                ps.setString(2, key.id());
                ps.setString(3, key.taxonomy().digest());
                ps.setString(4, key.stepRegex() == null ? null : key.stepRegex().pattern());
                ps.setString(5, stepSource.id());
                ps.setString(6, filesKey);
                ps.setString(7, build);
                ps.setTimestamp(8, Timestamp.from(Instant.now()));
                ps.setDouble(9, seconds);
                ps.executeUpdate();
            }
            update(c, """
                    INSERT INTO steps
                    SELECT $1::INTEGER, $2::VARCHAR, s.file_id, m.rank, s.step, s.phase, m.phase_index, s.name, $3::VARCHAR, s.step_number,
                           s.cpu_start, s.cpu_end
                    FROM t_steps s JOIN t_step_metrics m USING (file_id, step)
                    """, captureId, key, stepSource.id());
            update(c, """
                    INSERT INTO step_metrics
                    SELECT $1::INTEGER, $2::VARCHAR, m.file_id, m.rank, m.step, m.phase, m.phase_index, m.gpu_start, m.gpu_end,
                           m.kernel_ns, m.calls, m.span_ns, m.busy_ns, m.idle_ns, m.host_gap_ns, w.wait_ns, w.compute_ns,
                           o.comm_ns, o.hidden_ns, h.launch_wait_ns
                    FROM t_step_metrics m JOIN t_step_waits w USING (file_id, step) JOIN t_step_overlap o USING (file_id, step)
                    JOIN t_step_host h USING (file_id, step)
                    """, captureId, key);
            update(c, """
                    INSERT INTO step_categories
                    SELECT $1::INTEGER, $2::VARCHAR, file_id, rank, step, phase, phase_index, category, subcategory, ns, ns / 1e6, calls
                    FROM t_step_categories
                    """, captureId, key);
            update(c, """
                    INSERT INTO step_kernels
                    SELECT $1::INTEGER, $2::VARCHAR, o.file_id, m.rank, o.step, m.phase, m.phase_index, n.name,
                           o.kind::VARCHAR, o.variant, o.ns, o.calls
                    FROM t_step_names o JOIN t_step_metrics m USING (file_id, step) JOIN names n USING (file_id, name_id)
                    """, captureId, key);
            update(c, """
                    INSERT INTO kernel_classes
                    SELECT DISTINCT $1::INTEGER, $2::VARCHAR, n.name, k.kind::VARCHAR, k.variant, k.category, k.subcategory,
                           k.rule_id
                    FROM t_classes k JOIN names n USING (file_id, name_id)
                    """, captureId, key);
            update(c, """
                    INSERT INTO context_ops
                    SELECT $1::INTEGER, $2::VARCHAR, o.file_id, m.rank, o.step, o.stream, o.ts_ns, n.name, o.kind::VARCHAR,
                           o.variant
                    FROM t_ops_core o JOIN t_step_metrics m USING (file_id, step) JOIN names n USING (file_id, name_id)
                    WHERE o.variant > 0
                    """, captureId, key);
            update(c, """
                    INSERT INTO collective_instances
                    SELECT $1::INTEGER, $2::VARCHAR, instance, file_id, rank, step, phase, phase_index, type, k, ts_ns,
                           dur_ns, dtype, group_size, msg_bytes, transfer_ns, wait_ns, after_category
                    FROM t_collectives
                    """, captureId, key);
            update(c, """
                    INSERT INTO rank_devices
                    SELECT $1::INTEGER, $2::VARCHAR, file_id, rank, device, name, how FROM t_devices
                    """, captureId, key);
            update(c, """
                    INSERT INTO collective_arrivals
                    SELECT $1::INTEGER, $2::VARCHAR, instance, phase, phase_index, type, k, ranks, last_rank, last_file_id,
                           last_step, last_ts_ns, transfer_ns, lateness_ns, wait_ns, after_category
                    FROM t_collective_arrivals
                    """, captureId, key);
            update(c, """
                    INSERT INTO launch_delays
                    SELECT $1::INTEGER, $2::VARCHAR, file_id, rank, phase, category, ops, mean_ns, median_ns, p90_ns
                    FROM t_launch_delays
                    """, captureId, key);
            update(c, """
                    INSERT INTO graph_replays
                    SELECT $1::INTEGER, $2::VARCHAR, file_id, rank, step, phase, correlation, start_ns, end_ns, gap_ns
                    FROM t_graph_replays
                    """, captureId, key);
            update(c, """
                    INSERT INTO kernel_work
                    SELECT $1::INTEGER, $2::VARCHAR, w.file_id, m.rank, w.step, m.phase, n.name, w.kind::VARCHAR, w.category,
                           p.name, w.external_id, w.ts_ns, w.dur_ns, w.family, w.precision, w.flops, w.bytes
                    FROM t_kernel_work w JOIN t_step_metrics m USING (file_id, step) JOIN names n USING (file_id, name_id)
                    LEFT JOIN t_launch_ops l USING (file_id, external_id)
                    LEFT JOIN names p ON p.file_id = l.file_id AND p.name_id = l.name_id
                    """, captureId, key);
            update(c, """
                    INSERT INTO op_shape_calls
                    SELECT $1::INTEGER, $2::VARCHAR, l.file_id, m.rank, m.phase, n.name, l.shape_id, count(*)
                    FROM t_launch_ops l
                    JOIN (SELECT DISTINCT file_id, external_id, step FROM t_ops_core WHERE step IS NOT NULL) o
                         USING (file_id, external_id)
                    JOIN t_step_metrics m USING (file_id, step)
                    JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id
                    WHERE l.shape_id IS NOT NULL
                    GROUP BY ALL
                    """, captureId, key);
            // Derived from the kept rows, as the report reads them: one computation of the host-bound figures.
            List<Warning> all = new ArrayList<>(warnings);
            all.addAll(LaunchBoundRule.check(key.thresholds(), HostBoundMetrics.summarize(
                    new StoredAnalysis(c, scope, key.id(), stepSource, List.of()))));
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO analysis_warnings VALUES (?, ?, ?, ?, ?)")) {
                for (int i = 0; i < all.size(); i++) {
                    ps.setInt(1, captureId);
                    ps.setString(2, key.id());
                    ps.setInt(3, i);
                    ps.setString(4, all.get(i).code());
                    ps.setString(5, all.get(i).message());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Runs a statement whose parameters $1, $2 (and $3) are the capture id, the analysis key and {@code more}. */
    private static void update(Connection c, String sql, int captureId, AnalysisKey key, Object... more)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, captureId);
            ps.setString(2, key.id());
            for (int i = 0; i < more.length; i++) {
                ps.setObject(3 + i, more[i]);
            }
            ps.executeUpdate();
        }
    }

    /** Closes the connection; its temp tables go with it. */
    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
