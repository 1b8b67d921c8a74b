package dev.steptrace.analysis;

import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.store.Sql;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Graph launches with no per-kernel records: none at all, or only the one whole-replay row of an
 * Nsight Systems capture taken with {@code --cuda-graph-trace=graph} (a kernel row with a graph id
 * and no graph node id).
 */
final class GraphWithoutKernelsRule {
    static final Rule RULE = new Rule("graph_without_kernels", Severity.WARNING,
            "CUDA graph replays were captured without their kernels.",
            "A graph launch whose replay has no per-kernel records (Kineto without per-kernel graph activity,"
                    + " Nsight Systems with --cuda-graph-trace=graph) cannot be split into categories: its time is"
                    + " missing from, or lumped into, the category figures. Capture with per-node graph tracing"
                    + " (nsys --cuda-graph-trace=node).",
            List.of(), """
            SELECT f.rank, count(*) AS graph_launches,
                   count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM gpu_ops g WHERE g.file_id = l.file_id
                                                      AND g.correlation = l.correlation)) AS without_kernels
            FROM launches l JOIN files f USING (file_id) JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id
            WHERE f.capture_id = 1 AND n.name IN %s GROUP BY f.rank ORDER BY f.rank
            """.formatted(Sql.inList(StepSource.GRAPH_LAUNCHES)));

    private GraphWithoutKernelsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        try (Statement s = ctx.connection().createStatement(); ResultSet rs = s.executeQuery(
                "SELECT coalesce(sum(graph_launches), 0), coalesce(sum(graph_launches_without_kernels), 0)"
                        + " FROM file_checks WHERE " + ctx.where())) {
            rs.next();
            long launches = rs.getLong(1);
            long empty = rs.getLong(2);
            if (empty > 0) {
                out.add(new Warning(RULE, empty + " of " + launches
                        + " CUDA graph launches have no kernel records: those replays were captured without"
                        + " per-kernel activity, so their time cannot be split into categories"));
            }
        }
    }
}
