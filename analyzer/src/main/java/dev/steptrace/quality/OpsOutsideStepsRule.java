package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/** GPU operations that belong to no step. */
final class OpsOutsideStepsRule {
    static final Rule RULE = new Rule("ops_outside_steps", Severity.INFO,
            "Some GPU operations belong to no step.",
            "An operation belongs to the step whose range its launch falls in (or, without launches, whose"
                    + " range it starts in). Work launched before the first step, after the last, or between steps"
                    + " (warm-up, sampling outside the step annotation) is left out of every per-step figure; the"
                    + " message says how much GPU time that is.",
            List.of(), "file-checks");

    private OpsOutsideStepsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        long[] sums = new long[3];
        ctx.evidence(RULE, rs -> {
            sums[0] += rs.getLong(5);
            sums[1] += rs.getLong(6);
            sums[2] += rs.getLong(4);
        });
        if (sums[0] > 0) {
            double pct = sums[2] == 0 ? 0 : 100.0 * sums[1] / sums[2];
            out.add(ctx.warning(RULE, sums[0] + " GPU operation(s) (" + Fmt.ms(sums[1] / 1e6) + " ms, " + Fmt.pct(pct)
                    + " of GPU time) belong to no step: launched outside every step, or outside every step's GPU"
                    + " window; they are not in per-step figures"));
        }
    }
}
