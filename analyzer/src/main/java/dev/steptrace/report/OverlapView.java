package dev.steptrace.report;

import dev.steptrace.report.BottleneckReport.Overlap;

/**
 * One phase's communication under other GPU work as the templates show it (docs/reports.md,
 * "Overlap"): ms per step, and the hidden share.
 */
public record OverlapView(String comm, String hidden, String exposed, String hiddenPct) {

    /** Null when the phase has no communication. */
    static OverlapView of(Overlap o) {
        if (o == null) {
            return null;
        }
        return new OverlapView(Fmt.ms(o.commMsPerStep()), Fmt.ms(o.hiddenMsPerStep()), Fmt.ms(o.exposedMsPerStep()),
                Fmt.pct(o.hiddenPct()));
    }
}
