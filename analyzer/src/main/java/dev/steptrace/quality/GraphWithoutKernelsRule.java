package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
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
            List.of(), "file-checks");

    private GraphWithoutKernelsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        long[] sums = new long[2];
        ctx.evidence(RULE, rs -> {
            sums[0] += rs.getLong(7);
            sums[1] += rs.getLong(8);
        });
        if (sums[1] > 0) {
            out.add(ctx.warning(RULE, sums[1] + " of " + sums[0]
                    + " CUDA graph launches have no kernel records: those replays were captured without"
                    + " per-kernel activity, so their time cannot be split into categories"));
        }
    }
}
