package dev.steptrace.quality;

import dev.steptrace.classify.Taxonomy;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.sql.SQLException;
import java.util.List;

/** Too much kernel time in names no taxonomy rule matched. */
final class UnclassifiedKernelsRule {
    static final Rule RULE = new Rule("unclassified_kernels", Severity.WARNING,
            "Much of the kernel time is in kernels no taxonomy rule matched.",
            "Unmatched kernels count as other / unknown, so the category breakdown understates the categories"
                    + " they belong to. See why a name matched nothing with `steptrace taxonomy --explain NAME` and add"
                    + " rules with --taxonomy FILE (docs/taxonomy.md).",
            List.of(new Threshold("kernel_time_pct", 5, "%",
                    "share of the kernel time in steps above which it is reported")), "kernel-rules");

    private UnclassifiedKernelsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        long[] ns = new long[2];
        long[] names = new long[1];
        ctx.evidence(RULE, rs -> {
            ns[1] += rs.getLong(4);
            if (Taxonomy.CATCH_ALL_ID.equals(rs.getString(1))) {
                ns[0] += rs.getLong(4);
                names[0] += rs.getLong(2);
            }
        });
        double pct = ns[1] == 0 ? 0 : 100.0 * ns[0] / ns[1];
        if (pct > ctx.threshold(RULE, "kernel_time_pct")) {
            out.add(ctx.warning(RULE, Fmt.pct(pct) + " of kernel time is in " + names[0] + " kernel name(s) no taxonomy"
                    + " rule matched; see them with `steptrace taxonomy --explain NAME` and add rules with --taxonomy FILE"));
        }
    }
}
