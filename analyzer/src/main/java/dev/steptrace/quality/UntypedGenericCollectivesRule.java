package dev.steptrace.quality;

import dev.steptrace.classify.Taxonomy;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/** Generic collective launches ({@code ncclDevKernel_Generic}) no CPU op typed (docs/taxonomy.md). */
final class UntypedGenericCollectivesRule {
    static final Rule RULE = new Rule("untyped_generic_collectives", Severity.INFO,
            "Some generic collective kernels could not be typed.",
            "RCCL names every collective ncclDevKernel_Generic; its type is taken from the CPU op that launched"
                    + " it. Launches without one (CUDA/HIP graph replays carry none) count as Other collectives /"
                    + " nccl_generic, not as AllReduce, so the AllReduce figures may be low (docs/taxonomy.md).",
            List.of(), "kernel-rules");

    private UntypedGenericCollectivesRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        long[] untyped = new long[2];
        long[] typed = new long[1];
        ctx.evidence(RULE, rs -> {
            String rule = rs.getString(1);
            if (Taxonomy.GENERIC_COLLECTIVE_RULE.equals(rule)) {
                untyped[0] += rs.getLong(3);
                untyped[1] += rs.getLong(4);
            } else if (Taxonomy.GENERIC_ALLREDUCE_RULE.equals(rule) || Taxonomy.GENERIC_OTHER_RULE.equals(rule)) {
                typed[0] += rs.getLong(3);
            }
        });
        if (untyped[0] > 0) {
            out.add(ctx.warning(RULE, untyped[0] + " launch(es) (" + Fmt.ms(untyped[1] / 1e6) + " ms) of"
                    + " ncclDevKernel_Generic (RCCL names every collective so) have no launching CPU op that names their"
                    + " collective (CUDA/HIP graph replays carry none): they count as Other collectives / nccl_generic,"
                    + " not as AllReduce; " + typed[0] + " launch(es) were typed from their CPU op"));
        }
    }
}
