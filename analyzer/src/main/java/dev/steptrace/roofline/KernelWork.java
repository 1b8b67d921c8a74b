package dev.steptrace.roofline;

import dev.steptrace.analysis.SqlStage;
import dev.steptrace.rules.Rule;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The work each kernel of a capture did, as far as the trace says, into working tables of the analysis
 * connection (after the steps, categories and collective instances exist; stages 70 and 71); the analysis keeps them in
 * the store ({@code kernel_work}, {@code op_shape_calls}: docs/schema.md). What a device allows is not
 * here: {@link RooflineSummary} applies the peaks when a report is made.
 *
 * <ul>
 *   <li>{@code t_launch_ops(file_id, external_id, name_id, shape_id)}: the CPU ops that launched GPU work
 *       and have recorded shapes or launched a collective, one row per op (an external id two ops share is
 *       left out: it cannot say which launched what);</li>
 *   <li>{@code t_shape_work(file_id, op_name_id, shape_id, family, precision, flops, bytes)}: the work of
 *       each distinct (op, shapes) with a model ({@link WorkModels});</li>
 *   <li>{@code t_kernel_work(file_id, step, name_id, kind, category, ts_ns, dur_ns, external_id, family,
 *       precision, flops, bytes)}: every kernel in a step with known work, from the trace alone. An op's work
 *       is shared among the kernels it launched in proportion to their time (a split-K GEMM's two kernels
 *       share its FLOPs; the memsets an op issues get none); a collective's bytes are its bus traffic
 *       (message bytes x 2(n-1)/n for an all-reduce, x (n-1)/n for all-gather, reduce-scatter and
 *       all-to-all).</li>
 * </ul>
 *
 * Under CUDA graphs kernels carry no external id, so they have no shapes and no rows here: only a model
 * file can say what such a step must do ({@link DecodeFloors}).
 */
public final class KernelWork {
    /** The checks of the roofline's inputs, run where those inputs are read (docs/warnings.md). */
    public static final List<Rule> RULES = List.of(FilePeaks.UNKNOWN_DEVICE_PEAKS, ModelCheck.RULE);

    private KernelWork() {}

    /** Builds the tables (stages 70 and 71, with the shapes' work computed here between them). */
    public static void build(Connection c) throws SQLException {
        SqlStage.load("70-launch-ops").run(c, Map.of("work_ops", List.copyOf(new TreeSet<>(WorkModels.names()))));
        shapeWork(c);
        SqlStage.load("71-kernel-work").run(c, Map.of());
    }

    /** Every distinct (op, shapes) that launched work and has a model: its FLOPs and bytes, computed here. */
    private static void shapeWork(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT file_id, name_id, name, shape_id, input_dims, input_types, concrete_inputs FROM t_shape_calls
                """);
             PreparedStatement ins = c.prepareStatement("INSERT INTO t_shape_work VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            int batched = 0;
            while (rs.next()) {
                WorkModels.Work w = WorkModels.of(OpCall.parse(rs.getString(3), rs.getString(5), rs.getString(6),
                        rs.getString(7)));
                if (w == null) {
                    continue;
                }
                ins.setInt(1, rs.getInt(1));
                ins.setInt(2, rs.getInt(2));
                ins.setInt(3, rs.getInt(4));
                ins.setString(4, w.family());
                ins.setString(5, w.precision() == null ? null : w.precision().id());
                ins.setObject(6, w.flops());
                ins.setObject(7, w.bytes());
                ins.addBatch();
                batched++;
            }
            if (batched > 0) {
                ins.executeBatch();
            }
        }
    }
}
