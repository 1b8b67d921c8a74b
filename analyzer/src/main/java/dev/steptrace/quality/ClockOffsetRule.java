package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Rank clocks that disagree ({@link ClockOffsets}, whole capture). */
final class ClockOffsetRule {
    static final Rule RULE = new Rule("clock_offset", Severity.WARNING,
            "Rank clocks disagree.",
            "Collectives end at the same moment on every rank, so the median offset of a rank's collective end"
                    + " times from the other ranks' is its clock's offset. Cross-rank timelines are shifted by that"
                    + " much; per-rank durations, and the figures made from them, are unaffected.",
            List.of(new Threshold("offset_us", 100, "µs", "a rank's median offset above which it is reported")),
            "clock-offsets");

    private ClockOffsetRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        double limit = ctx.threshold(RULE, "offset_us");
        List<String> off = new ArrayList<>();
        for (ClockOffsets.RankClock clock : ClockOffsets.estimate(ctx.kept(), null, null)) {
            double us = clock.offsetNs() / 1000.0;
            if (Math.abs(us) > limit) {
                off.add("rank " + clock.rank() + " " + Fmt.signedUs(us) + " µs");
            }
        }
        if (!off.isEmpty()) {
            out.add(ctx.warning(RULE, "rank clocks disagree (median offset of collective end times"
                    + " from the other ranks: " + String.join(", ", off) + "); cross-rank timelines are"
                    + " shifted by that much, per-rank durations are unaffected"));
        }
    }
}
