package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/** GPU operations that belong to no step. */
final class OpsOutsideStepsRule {
    static final Rule RULE = new Rule("ops_outside_steps", Severity.INFO,
            "Some GPU operations belong to no step.",
            "An operation belongs to the step whose range its launch falls in (or, without launches, whose"
                    + " range it starts in). Work launched before the first step, after the last, or between steps"
                    + " (warm-up, sampling outside the step annotation) is left out of every per-step figure; the"
                    + " message says how much GPU time that is.",
            List.of(), """
            SELECT (SELECT count(*) FROM gpu_ops JOIN files USING (file_id) WHERE capture_id = 1 AND kind <> 'sync')
                   - (SELECT sum(calls) FROM step_metrics WHERE capture_id = 1 AND analysis_key = 'default')
                   AS ops_outside_steps
            """);

    private OpsOutsideStepsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        try (Statement s = ctx.connection().createStatement(); ResultSet rs = s.executeQuery(
                "SELECT coalesce(sum(outside_ops), 0), coalesce(sum(outside_ns), 0), coalesce(sum(ops_ns), 0)"
                        + " FROM file_checks WHERE " + ctx.where())) {
            rs.next();
            long n = rs.getLong(1);
            if (n > 0) {
                double ms = rs.getLong(2) / 1e6;
                double pct = rs.getLong(3) == 0 ? 0 : 100.0 * rs.getLong(2) / rs.getLong(3);
                out.add(new Warning(RULE, String.format(Locale.ROOT,
                        "%d GPU operation(s) (%.2f ms, %.1f%% of GPU time) belong to no step: launched outside"
                                + " every step, or outside every step's GPU window; they are not in per-step figures",
                        n, ms, pct)));
            }
        }
    }
}
