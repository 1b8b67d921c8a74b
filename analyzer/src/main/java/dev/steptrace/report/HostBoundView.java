package dev.steptrace.report;

import dev.steptrace.report.BottleneckReport.HostBound;
import dev.steptrace.report.BottleneckReport.LaunchDelay;
import dev.steptrace.report.BottleneckReport.PerStep;
import java.util.ArrayList;
import java.util.List;

/**
 * One phase's host-bound figures as the templates show them (docs/reports.md, "Host-bound steps"):
 * the GPU's idle time inside the step split into waiting for launches and the rest, launch delays per
 * category, CUDA graph replays.
 *
 * @param launchBound whether the phase passes the launch-bound rule
 * @param graphs      how the phase's kernels reach the GPU, in words
 * @param replays     CUDA graph replays per step ("0" when every kernel is launched eagerly)
 */
public record HostBoundView(String idle, String launchWait, String launchWaitPct, String otherIdle, boolean launchBound,
                            String graphs, String replays, String replayGapMean, String replayGapMedian,
                            String replayGapP90, List<DelayRow> delays) {

    /** Launch delay of one category: launches per step, median and p90 µs. */
    public record DelayRow(String category, String color, String launches, String medianUs, String p90Us) {}

    /** Null when the model has no host-bound figures for the phase. */
    static HostBoundView of(HostBound h) {
        if (h == null) {
            return null;
        }
        List<DelayRow> delays = new ArrayList<>();
        for (LaunchDelay d : h.launchDelays() == null ? List.<LaunchDelay>of() : h.launchDelays()) {
            delays.add(new DelayRow(ReportCategories.label(d.category(), null), ReportCategories.color(d.category()),
                    Fmt.count(d.launchesPerStep()), Fmt.us(d.medianUs()), Fmt.us(d.p90Us())));
        }
        PerStep gap = h.graphReplayGapUs();
        return new HostBoundView(Fmt.ms(h.idleMsPerStep()), Fmt.ms(h.launchWaitMsPerStep()), Fmt.pct(h.launchWaitPctOfSpan()),
                Fmt.ms(h.otherIdleMsPerStep()), Boolean.TRUE.equals(h.launchBound()), graphs(h.graphReplaysPerStep()),
                Fmt.count(h.graphReplaysPerStep()), Fmt.us(gap == null ? null : gap.mean()),
                Fmt.us(gap == null ? null : gap.median()), Fmt.us(gap == null ? null : gap.p90()), delays);
    }

    /** "replays CUDA graphs (1 replay per step)" or "launches every kernel eagerly (no CUDA graphs)". */
    static String graphs(double replaysPerStep) {
        if (replaysPerStep <= 0) {
            return "launches every kernel eagerly (no CUDA graphs)";
        }
        String n = Fmt.count(replaysPerStep);
        return "replays CUDA graphs (" + n + ("1".equals(n) ? " replay" : " replays") + " per step)";
    }
}
