package dev.steptrace.roofline;

import dev.steptrace.rules.Rule;
import dev.steptrace.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.TreeSet;

/**
 * The work each kernel of a capture did, as far as the trace says, into temp tables of the analysis
 * connection (after the steps, categories and collective instances exist); the analysis keeps them in
 * the store ({@code kernel_work}, {@code op_shape_calls}: docs/schema.md). What a device allows is not
 * here: {@link RooflineSummary} applies the peaks when a report is made.
 *
 * <ul>
 *   <li>{@code t_launch_ops(file_id, external_id, name_id, shape_id)}: the CPU ops that launched GPU work,
 *       one row per op (an external id two ops share is left out: it cannot say which launched what);</li>
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

    /** Builds the tables. */
    public static void build(Connection c) throws SQLException {
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_launch_ops AS
                SELECT c.file_id, c.external_id, c.name_id, c.shape_id
                FROM cpu_ops c
                SEMI JOIN (SELECT DISTINCT file_id, external_id FROM t_ops_core WHERE external_id IS NOT NULL) o
                     USING (file_id, external_id)
                WHERE c.kind = 'cpu_op'
                QUALIFY count(*) OVER (PARTITION BY c.file_id, c.external_id) = 1
                """);
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_shape_work (file_id INTEGER, op_name_id INTEGER, shape_id INTEGER,
                    family VARCHAR, precision VARCHAR, flops DOUBLE, bytes DOUBLE)
                """);
        shapeWork(c);
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_kernel_work AS
                WITH op_kernels AS (
                    SELECT o.file_id, o.step, o.name_id, o.kind, k.category, o.ts_ns, o.dur_ns, o.external_id, w.family,
                           w.precision, w.flops, w.bytes, sum(o.dur_ns) OVER op AS op_ns, count(*) OVER op AS op_n
                    FROM t_ops_core o
                    JOIN t_classes k USING (file_id, name_id, kind, variant)
                    JOIN t_launch_ops l ON l.file_id = o.file_id AND l.external_id = o.external_id
                    JOIN t_shape_work w ON w.file_id = l.file_id AND w.op_name_id = l.name_id AND w.shape_id = l.shape_id
                    WHERE o.kind = 'kernel'
                    WINDOW op AS (PARTITION BY o.file_id, o.external_id)
                ), shared AS (
                    SELECT file_id, step, name_id, kind, category, ts_ns, dur_ns, external_id, family, precision,
                           flops * share AS flops, bytes * share AS bytes
                    FROM (SELECT *, CASE WHEN op_ns > 0 THEN dur_ns / op_ns ELSE 1.0 / op_n END AS share FROM op_kernels)
                    WHERE step IS NOT NULL
                ), comm AS (
                    SELECT c.file_id, c.step, o.name_id, o.kind, k.category, c.ts_ns, c.dur_ns, o.external_id,
                           'collective' AS family, NULL AS precision,
                           NULL::DOUBLE AS flops,
                           c.msg_bytes * CASE
                               WHEN c.type = 'allreduce' THEN 2.0 * (n - 1) / n
                               WHEN c.type IN ('all_gather', 'reduce_scatter', 'all_to_all') THEN (n - 1)::DOUBLE / n
                               ELSE 1.0 END AS bytes
                    FROM (SELECT *, coalesce(group_size, (SELECT count(DISTINCT rank) FROM t_files)) AS n
                          FROM t_collectives WHERE msg_bytes IS NOT NULL) c
                    JOIN t_ops_core o ON o.file_id = c.file_id AND o.ts_ns = c.ts_ns AND o.dur_ns = c.dur_ns AND o.step = c.step
                    JOIN t_classes k ON k.file_id = o.file_id AND k.name_id = o.name_id AND k.kind = o.kind
                         AND k.variant = o.variant AND k.category IN ('allreduce', 'comm_other')
                    QUALIFY row_number() OVER (PARTITION BY c.file_id, c.ts_ns, c.dur_ns ORDER BY o.name_id) = 1
                )
                SELECT * FROM shared UNION ALL BY NAME SELECT * FROM comm
                """);
    }

    /** Every distinct (op, shapes) that launched work and has a model: its FLOPs and bytes, computed here. */
    private static void shapeWork(Connection c) throws SQLException {
        String names = String.join(", ", new TreeSet<>(WorkModels.names()).stream()
                .map(n -> "'" + n.replace("'", "''") + "'").toList());
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT DISTINCT l.file_id, l.name_id, n.name, l.shape_id, p.input_dims, p.input_types, p.concrete_inputs
                FROM t_launch_ops l
                JOIN names n USING (file_id, name_id)
                JOIN op_shapes p USING (file_id, shape_id)
                WHERE n.name IN (""" + names + ")");
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
