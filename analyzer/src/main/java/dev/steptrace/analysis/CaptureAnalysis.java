package dev.steptrace.analysis;

import dev.steptrace.store.CaptureScope;
import dev.steptrace.store.KeptAnalysis;
import dev.steptrace.whatif.CriticalPaths;
import dev.steptrace.classify.StoreClassifier;
import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.store.Sql;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import dev.steptrace.store.StoreCaptures;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One capture's analysis, made in working tables of a connection of its own (fast to build, gone when it
 * closes: in a compressed in-memory database of their own, {@link WorkDatabase}, or temp tables on a
 * read-only store), and {@link #persist kept} in the store's analysis tables (docs/schema.md, "The analysis"),
 * replacing the rows of the same capture and analysis key, in one transaction. Everything downstream
 * (report, diff, decision memo, timeline, API) reads the store tables ({@link StoredAnalysis}).
 *
 * <table>
 *   <caption>Working tables, and the store tables they are copied into</caption>
 *   <tr><td>{@code t_devices}</td><td>per file and device id its GPU work ran on: the device's name, and how
 *       it was found (stage {@code 02-devices})</td><td>{@code rank_devices}</td></tr>
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
 *   <tr><td>{@code t_replay_latencies}</td><td>per file: the launch latency and stream gap the replay takes as
 *       "at once" (ns)</td><td>{@code replay_latencies}</td></tr>
 *   <tr><td>{@code t_graph_replays}</td><td>CUDA graph replays: GPU window, gap since the previous one (ns)</td>
 *       <td>{@code graph_replays}</td></tr>
 *   <tr><td>{@code t_kernel_work}</td><td>kernels with known work: FLOPs, bytes ({@link ShapeWork}, stage {@code 71-kernel-work})</td>
 *       <td>{@code kernel_work}</td></tr>
 *   <tr><td>{@code t_launch_ops}</td><td>the CPU ops that launched GPU work, with their shapes (those with
 *       shapes, and those that launched collectives)</td>
 *       <td>{@code op_shape_calls} (calls per phase and shapes)</td></tr>
 *   <tr><td>(none: from the kept rows, {@link CriticalPaths})</td><td>each step's critical path on its rank</td>
 *       <td>{@code critical_path_base}</td></tr>
 *   <tr><td>{@code t_file_checks}</td><td>per file, what the capture-quality rules read that no other table
 *       keeps: operations in no step, graph launches without kernels, why NVTX ranges are not steps</td>
 *       <td>{@code file_checks}</td></tr>
 * </table>
 * The capture-quality rules run over the kept tables ({@link dev.steptrace.quality.CaptureRules}); their warnings go to
 * {@code analysis_warnings}, and a row of {@code analyses} records the files, options and build the
 * analysis was made from.
 */
public final class CaptureAnalysis implements AutoCloseable {
    private final Connection connection;
    private final CaptureScope scope;
    private final AnalysisKey key;
    private final StepSource stepSource;
    private final double seconds;
    private final boolean readOnly;
    /** The database holding the working tables ({@link WorkDatabase}), or null: temp tables, or dropped once kept. */
    private String work;

    private CaptureAnalysis(Connection connection, String work, CaptureScope scope, AnalysisKey key,
                            StepSource stepSource, double seconds, boolean readOnly) {
        this.connection = connection;
        this.work = work;
        this.scope = scope;
        this.key = key;
        this.stepSource = stepSource;
        this.seconds = seconds;
        this.readOnly = readOnly;
    }

    /**
     * About how many GPU operations the costliest statements take at once (a batch of files, stage 00, {@link
     * SqlStage}; a batch holds at most this plus one file's): with 1 M, each 2 GB file of eager decode (1.5 M)
     * is a batch, 1 GB files go two by two, and their hash tables and sorts stay within DuckDB's memory limit;
     * a capture of small files is one batch, whose statements run once (docs/performance.md,
     * "Why the code is as it is").
     */
    static final long BATCH_OPS = 1_000_000;

    /** Analyses a capture already in the store under {@code key}'s options, into working tables. */
    public static CaptureAnalysis run(Store store, int captureId, AnalysisKey key) throws SQLException, StoreException {
        long t0 = System.nanoTime();
        StoreClassifier.classify(store, key.taxonomy());
        Connection c = store.newConnection();
        String work = null;
        try {
            work = store.readOnly() ? null : WorkDatabase.attach(c);
            CaptureScope scope = CaptureScope.load(c, captureId);
            AnalysisStages.Run run = new AnalysisStages.Run(c, captureId, key);
            AnalysisStages.runAll(run);
            return new CaptureAnalysis(c, work, scope, key, run.source, (System.nanoTime() - t0) / 1e9, store.readOnly());
        } catch (SQLException | RuntimeException | Error e) {
            try {
                release(c, work);
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    public CaptureScope scope() {
        return scope;
    }

    public StepSource stepSource() {
        return stepSource;
    }

    /** The analysis connection, for queries over the working tables listed in the class comment. */
    public Connection connection() {
        return connection;
    }

    /**
     * Copies the working tables into the store's analysis tables (stage {@code 90-keep-analysis}), replacing
     * the rows of the same capture and analysis key, then keeps the critical paths and warnings read from them
     * and, last, the {@code analyses} row that makes the analysis found (stage {@code 91-keep-analysis-row}). A
     * store that cannot be written gets them as temp tables of the same names on this analysis's connection
     * instead, which then reads as the store would (they hide the store's own tables there): {@link
     * #connection()} is what reads them.
     *
     * <p>On a writable store the working tables are dropped once copied, before the critical paths are walked:
     * at 16 x 2 GB they hold 2 GB (docs/performance.md, "Why the code is as it is"). DuckDB detaches no database a
     * transaction has read, so the copy is a transaction of its own, and the critical paths are committed as they
     * are appended (held for one commit, 1.5 M rows filled 370 MB of DuckDB's memory); the warnings and the
     * {@code analyses} row are a last transaction. An analysis that fails after the copy, or is stopped, has no
     * {@code analyses} row, and its rows are removed then or by the next analysis under its key.
     *
     * @param build the steptrace build, recorded in {@code analyses}
     */
    public void persist(String build) throws SQLException {
        Connection c = connection;
        int captureId = scope.captureId();
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("capture_id", captureId);
        parameters.put("analysis_key", key.id());
        parameters.put("step_source", stepSource.id());
        parameters.put("taxonomy_digest", key.taxonomy().digest());
        parameters.put("step_regex", key.stepRegex() == null ? null : key.stepRegex().pattern());
        parameters.put("files_key", StoreCaptures.filesKey(c, captureId));
        parameters.put("build", build);
        parameters.put("seconds", seconds);
        if (readOnly) {
            StoreCaptures.shadowAnalysisTables(c);
        }
        Sql.inTransaction(c, () -> {
            StoreCaptures.deleteAnalysis(c, captureId, key.id());
            SqlStage.load(AnalysisStages.KEEP).run(c, parameters);
        });
        if (work != null) {
            WorkDatabase.detach(c, work);
            work = null;
        }
        try {
            // From the kept rows, as a replay reads them (docs/whatif.md): one reading of the events for both.
            CriticalPaths.keep(new KeptAnalysis(c, captureId, key.id()), stepSource.gpuAnchored(), HostSyncCalls.NAMES);
            Sql.inTransaction(c, () -> {
                // Checked over the kept rows, as the report reads them and as Spark assembles them (docs/spark.md):
                // one definition of each rule.
                List<Warning> all = StoredAnalysis.checked(c, scope, key.id(), stepSource, key.thresholds()).warnings();
                StoreCaptures.keepWarnings(c, captureId, key.id(), all.stream().map(w -> List.of(w.code(), w.message())).toList());
                SqlStage.load(AnalysisStages.KEEP_ROW).run(c, parameters);
            });
        } catch (SQLException | RuntimeException e) {
            try {
                StoreCaptures.deleteAnalysis(c, captureId, key.id());
            } catch (SQLException d) {
                e.addSuppressed(d);
            }
            throw e;
        }
    }

    /** Drops the working tables (the work database, or the temp tables with the connection) and closes it. */
    @Override
    public void close() throws SQLException {
        if (!connection.isClosed()) {
            release(connection, work);
        }
    }

    private static void release(Connection c, String work) throws SQLException {
        try (c) {
            if (work != null) {
                WorkDatabase.detach(c, work);
            }
        }
    }
}
