package dev.steptrace.analysis;

import dev.steptrace.classify.StoreClassifier;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.roofline.KernelWork;
import dev.steptrace.roofline.RooflineInputs;
import dev.steptrace.store.Store;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import tech.tablesaw.api.Table;

/**
 * The analysis of one capture: steps, their phases, every GPU operation's step and category, per-step
 * metrics and collective instances, as temp tables of a connection of its own. Reports, diffs,
 * decision memos and notebooks all read these tables (as Tablesaw tables through {@link #table}).
 *
 * <table>
 *   <caption>Tables</caption>
 *   <tr><td>{@code t_devices}</td><td>per file and device id its GPU work ran on: the device's name, and how it
 *       was found ({@link CaptureDevices})</td></tr>
 *   <tr><td>{@code t_steps}</td><td>steps per file: name, phase, CPU range</td></tr>
 *   <tr><td>{@code t_classes}</td><td>category, subcategory and rule id of each (file, name, kind, variant):
 *       variant 0 is the name's class, others the classes {@link ContextClasses} gave some of its operations</td></tr>
 *   <tr><td>{@code t_ops_core}</td><td>GPU operations with their step and class variant (ids and numbers only)</td></tr>
 *   <tr><td>{@code t_ops}</td><td>view: {@code t_ops_core} with category, subcategory, rule id</td></tr>
 *   <tr><td>{@code t_step_metrics}</td><td>per step: kernel, span, busy, idle, host gap (ns)</td></tr>
 *   <tr><td>{@code t_step_categories}</td><td>per step and (sub)category: ns and calls</td></tr>
 *   <tr><td>{@code t_kernel_stats}</td><td>per rank, phase and kernel name: ns and calls</td></tr>
 *   <tr><td>{@code t_collectives}</td><td>collective instances with message bytes, wait and transfer</td></tr>
 *   <tr><td>{@code t_step_waits}</td><td>per step: collective wait and compute time (ns)</td></tr>
 *   <tr><td>{@code t_collective_arrivals}</td><td>per matched instance: the rank that arrived last, the others' wait</td></tr>
 *   <tr><td>{@code t_step_overlap}</td><td>per step: communication time and the part of it under other work (ns)</td></tr>
 *   <tr><td>{@code t_step_host}</td><td>per step: GPU idle, and the part of it waiting for launches (ns)</td></tr>
 *   <tr><td>{@code t_launch_delays}</td><td>per file, phase and category: eager launch delays (ns)</td></tr>
 *   <tr><td>{@code t_graph_replays}</td><td>CUDA graph replays: GPU window, gap since the previous one (ns)</td></tr>
 *   <tr><td>{@code t_step_kernels}</td><td>per step and kernel name: ns and calls (after {@link #buildStepKernels})</td></tr>
 *   <tr><td>{@code t_kernel_work}</td><td>kernels with known work: FLOPs, bytes ({@link KernelWork}); the view {@code t_kernel_bounds} adds least times</td></tr>
 * </table>
 */
public final class CaptureAnalysis implements AutoCloseable {
    private final Connection connection;
    private final CaptureScope scope;
    private final StepSource stepSource;
    private final List<Warning> warnings;
    private final RooflineInputs rooflineInputs;
    private final KernelWork kernelWork;
    private boolean stepKernels;

    private CaptureAnalysis(Connection connection, CaptureScope scope, StepSource stepSource, List<Warning> warnings,
                            RooflineInputs rooflineInputs, KernelWork kernelWork) {
        this.connection = connection;
        this.scope = scope;
        this.stepSource = stepSource;
        this.warnings = warnings;
        this.rooflineInputs = rooflineInputs;
        this.kernelWork = kernelWork;
    }

    /**
     * Analyses a capture already in the store.
     *
     * @param stepRegex annotation names that mark steps (overrides the built-in sources), or null
     */
    public static CaptureAnalysis run(Store store, int captureId, Taxonomy taxonomy, Pattern stepRegex)
            throws SQLException {
        return run(store, captureId, taxonomy, stepRegex, RooflineInputs.defaults());
    }

    /**
     * Analyses a capture already in the store, with these device peaks and model file for the roofline.
     *
     * @param stepRegex annotation names that mark steps (overrides the built-in sources), or null
     */
    public static CaptureAnalysis run(Store store, int captureId, Taxonomy taxonomy, Pattern stepRegex,
                                      RooflineInputs roofline) throws SQLException {
        StoreClassifier.classify(store, taxonomy);
        Connection c = store.newConnection();
        try {
            CaptureScope scope = CaptureScope.load(c, captureId);
            try (PreparedStatement ps = c.prepareStatement(
                    "CREATE OR REPLACE TEMP TABLE t_files AS SELECT file_id, rank FROM files WHERE capture_id = ?")) {
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
                ps.setString(1, taxonomy.digest());
                ps.execute();
            }
            CaptureDevices.build(c);
            StepSource source = StepDetector.detect(c, stepRegex);
            StepAttribution.attribute(c, source);
            ContextClasses.refine(c, taxonomy);
            StepMetrics.build(c);
            CollectiveMetrics.build(c);
            CollectiveWaits.build(c);
            Stragglers.build(c);
            OverlapMetrics.build(c);
            HostBoundMetrics.build(c);
            KernelWork work = KernelWork.build(c, roofline);
            List<Warning> warnings = new ArrayList<>(CaptureQuality.check(c, scope, source));
            warnings.addAll(work.warnings());
            return new CaptureAnalysis(c, scope, source, List.copyOf(warnings), roofline, work);
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

    public List<Warning> warnings() {
        return warnings;
    }

    /** The device peaks and model file this analysis was run with. */
    public RooflineInputs rooflineInputs() {
        return rooflineInputs;
    }

    /** Each kernel's work ({@code t_kernel_work}) and each file's matched GPU. */
    public KernelWork kernelWork() {
        return kernelWork;
    }

    /** The analysis connection, for queries over the temp tables listed in the class comment. */
    public Connection connection() {
        return connection;
    }

    /** Runs SQL over the analysis tables (and the store) into a Tablesaw table. */
    public Table table(String sql) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return Table.read().db(rs);
        }
    }

    /**
     * Builds {@code t_step_kernels} (per file, step and kernel name: ns and calls) once; the report
     * does not need it, a diff does. Returns the table's name.
     */
    public synchronized String buildStepKernels() throws SQLException {
        if (!stepKernels) {
            StepMetrics.buildStepKernels(connection);
            stepKernels = true;
        }
        return "t_step_kernels";
    }

    /** Closes the connection; its temp tables go with it. */
    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
