package dev.steptrace.quality;

import dev.steptrace.common.Phase;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import dev.steptrace.rules.Thresholds;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A phase whose GPU waits for the CPU to launch work for much of the step (docs/reports.md, "Host-bound steps"):
 * query {@code host-bound}, the figures the report shows. The report's launch-bound flag of a phase is this rule's
 * verdict ({@link #launchBound}), so an override of its threshold moves both.
 */
public final class LaunchBoundRule {
    public static final Rule RULE = new Rule("launch_bound", Severity.WARNING,
            "A phase is launch-bound: the GPU waits for the CPU to launch work.",
            "GPU idle time after which the next operation's launch call began only once the GPU was idle is time"
                    + " the GPU waited for the CPU (docs/reports.md, host-bound steps). When it is a large share of the"
                    + " step span, fewer and larger kernels, or CUDA graphs, would close the gaps. The report's"
                    + " launch-bound flag of a phase is this rule's verdict: an override moves both.",
            List.of(new Threshold("launch_wait_pct", 20, "%",
                    "mean share of the step span spent waiting for launches from which a phase is reported")),
            "host-bound");

    private LaunchBoundRule() {}

    /**
     * The share of the step span a phase's GPU waits for launches, percent, from its means per step (ms): null when
     * the wait is unknown (no launch calls) or the span is not positive.
     */
    public static Double launchWaitPct(Double launchWaitMs, double spanMs) {
        return launchWaitMs == null || spanMs <= 0 ? null : 100 * launchWaitMs / spanMs;
    }

    /** Whether a phase waiting for launches {@code pct}% of its span is launch-bound under {@code thresholds}. */
    public static boolean launchBound(double pct, Thresholds thresholds) {
        return pct >= thresholds.get(RULE, "launch_wait_pct");
    }

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        // In the report's order of phases.
        Map<String, Warning> byPhase = new TreeMap<>(Comparator.comparingInt(Phase.IDS::indexOf));
        ctx.evidence(RULE, rs -> {
            double w = rs.getDouble(3);
            Double wait = rs.wasNull() ? null : w;
            if (rs.getObject(4) == null) {
                return; // no step with a span: idle time is unknown, not 0
            }
            Double pct = launchWaitPct(wait, rs.getDouble(4));
            if (pct != null && launchBound(pct, ctx.thresholds())) {
                byPhase.put(rs.getString(1), ctx.warning(RULE, rs.getString(1) + " is launch-bound: the GPU waits for the"
                        + " CPU to launch work " + Fmt.pct(pct) + " of the step span (" + Fmt.ms(wait) + " ms per step, at"
                        + " least " + Fmt.plain(ctx.threshold(RULE, "launch_wait_pct")) + "% is launch-bound); fewer,"
                        + " larger kernels or CUDA graphs would close the gaps"));
            }
        });
        out.addAll(byPhase.values());
    }
}
