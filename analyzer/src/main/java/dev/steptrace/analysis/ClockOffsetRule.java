package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Rank clocks that disagree ({@link ClockOffsets}, whole capture). */
final class ClockOffsetRule {
    static final Rule RULE = new Rule("clock_offset", Severity.WARNING,
            "Rank clocks disagree.",
            "Collectives end at the same moment on every rank, so the median offset of a rank's collective end"
                    + " times from the other ranks' is its clock's offset. Cross-rank timelines are shifted by that"
                    + " much; per-rank durations, and the figures made from them, are unaffected.",
            List.of(new Threshold("offset_us", 100, "µs", "a rank's median offset above which it is reported")), """
            SELECT a.rank, median((a.ts_ns + a.dur_ns) - (b.ts_ns + b.dur_ns)) / 1e3 AS offset_us_from_rank_b, b.rank AS rank_b
            FROM collective_instances a JOIN collective_instances b USING (capture_id, analysis_key, instance)
            WHERE a.capture_id = 1 AND a.analysis_key = 'default' AND a.rank <> b.rank
            GROUP BY a.rank, b.rank ORDER BY a.rank, b.rank
            """);

    private ClockOffsetRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        double limit = ctx.thresholds().get(RULE, "offset_us");
        List<String> off = new ArrayList<>();
        for (ClockOffsets.RankClock clock : ClockOffsets.estimate(ctx.connection(), ClockOffsets.kept(ctx.analysis()), null, null)) {
            double us = clock.offsetNs() / 1000.0;
            if (Math.abs(us) > limit) {
                off.add(String.format(Locale.ROOT, "rank %d %+.0f µs", clock.rank(), us));
            }
        }
        if (!off.isEmpty()) {
            out.add(new Warning(RULE, "rank clocks disagree (median offset of collective end times"
                    + " from the other ranks: " + String.join(", ", off) + "); cross-rank timelines are"
                    + " shifted by that much, per-rank durations are unaffected"));
        }
    }
}
