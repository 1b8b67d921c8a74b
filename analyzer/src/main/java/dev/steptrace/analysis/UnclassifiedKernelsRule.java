package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/** Too much kernel time in names no taxonomy rule matched. */
final class UnclassifiedKernelsRule {
    static final Rule RULE = new Rule("unclassified_kernels", Severity.WARNING,
            "Much of the kernel time is in kernels no taxonomy rule matched.",
            "Unmatched kernels count as other / unknown, so the category breakdown understates the categories"
                    + " they belong to. See why a name matched nothing with `steptrace taxonomy --explain NAME` and add"
                    + " rules with --taxonomy FILE (docs/taxonomy.md).",
            List.of(new Threshold("kernel_time_pct", 5, "%",
                    "share of the kernel time in steps above which it is reported")), """
            SELECT k.name, sum(s.ns) / 1e6 AS ms, 100 * sum(s.ns) / (SELECT sum(ns) FROM step_kernels
                   WHERE capture_id = 1 AND analysis_key = 'default') AS pct_of_kernel_time
            FROM step_kernels s JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
            WHERE s.capture_id = 1 AND s.analysis_key = 'default' AND k.rule_id = 'other.unclassified'
            GROUP BY k.name ORDER BY ms DESC
            """);

    private UnclassifiedKernelsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        try (Statement s = ctx.connection().createStatement(); ResultSet rs = s.executeQuery("""
                SELECT coalesce(sum(s.ns) FILTER (WHERE k.rule_id = 'other.unclassified'), 0), coalesce(sum(s.ns), 0),
                       (SELECT count(DISTINCT name) FROM kernel_classes WHERE %1$s AND rule_id = 'other.unclassified')
                FROM step_kernels s JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
                WHERE %1$s
                """.formatted(ctx.where()))) {
            rs.next();
            double pct = rs.getLong(2) == 0 ? 0 : 100.0 * rs.getLong(1) / rs.getLong(2);
            if (pct > ctx.thresholds().get(RULE, "kernel_time_pct")) {
                out.add(new Warning(RULE, String.format(Locale.ROOT,
                        "%.1f%% of kernel time is in %d kernel name(s) no taxonomy rule matched; see them with"
                                + " `steptrace taxonomy --explain NAME` and add rules with --taxonomy FILE",
                        pct, rs.getLong(3))));
            }
        }
    }
}
