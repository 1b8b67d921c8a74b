package dev.steptrace.analysis;

import dev.steptrace.common.Phase;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import dev.steptrace.rules.Thresholds;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A phase whose GPU waits for the CPU to launch work for much of the step ({@link HostBoundMetrics}). */
final class LaunchBoundRule {
    static final Rule RULE = new Rule("launch_bound", Severity.WARNING,
            "A phase is launch-bound: the GPU waits for the CPU to launch work.",
            "GPU idle time after which the next operation's launch call began only once the GPU was idle is time"
                    + " the GPU waited for the CPU (docs/reports.md, host-bound steps). When it is a large share of the"
                    + " step span, fewer and larger kernels, or CUDA graphs, would close the gaps. The report's"
                    + " launch-bound flag uses the default threshold; an override changes this warning only.",
            List.of(new Threshold("launch_wait_pct", HostBoundMetrics.LAUNCH_BOUND_PCT, "%",
                    "mean share of the step span spent waiting for launches from which a phase is reported")), """
            SELECT phase, 100 * avg(launch_wait_ns) / avg(span_ns) AS launch_wait_pct_of_span
            FROM step_metrics WHERE capture_id = 1 AND analysis_key = 'default' GROUP BY phase
            """);

    private LaunchBoundRule() {}

    /**
     * A warning per phase of {@code host} (the host-bound figures the report shows) whose launch wait
     * reaches the threshold. It runs when the analysis is kept, over the kept figures, not with the
     * checks of {@link CaptureRules#check}.
     */
    static List<Warning> check(Thresholds thresholds, Map<String, BottleneckReport.HostBound> host) {
        double limit = thresholds.get(RULE, "launch_wait_pct");
        List<Warning> out = new ArrayList<>();
        for (String phase : Phase.IDS) {
            BottleneckReport.HostBound h = host.get(phase);
            if (h != null && h.launchWaitPctOfSpan() != null && h.launchWaitPctOfSpan() >= limit) {
                out.add(new Warning(RULE, String.format(Locale.ROOT, "%s is launch-bound: the GPU waits for"
                                + " the CPU to launch work %.1f%% of the step span (%.2f ms per step, at least %.0f%% is"
                                + " launch-bound); fewer, larger kernels or CUDA graphs would close the gaps",
                        phase, h.launchWaitPctOfSpan(), h.launchWaitMsPerStep(), limit)));
            }
        }
        return out;
    }
}
