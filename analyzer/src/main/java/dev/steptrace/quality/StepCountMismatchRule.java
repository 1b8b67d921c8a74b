package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Ranks with different numbers of steps of a phase. */
final class StepCountMismatchRule {
    static final Rule RULE = new Rule("step_count_mismatch", Severity.WARNING,
            "Ranks have different step counts in a phase.",
            "Collectives are matched across ranks by (phase, step position): when the ranks' profiling windows"
                    + " start or stop at different steps, only the first steps that every rank has are matched, and"
                    + " a rank's extra steps count in its own figures only. Start and stop the profiler on the same"
                    + " step of every rank.",
            List.of(), "rank-phase-steps");

    private StepCountMismatchRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        Map<String, Map<Integer, Long>> steps = new TreeMap<>();
        ctx.evidence(RULE, rs -> steps.computeIfAbsent(rs.getString(1), p -> new TreeMap<>()).put(rs.getInt(2), rs.getLong(3)));
        steps.forEach((phase, byRank) -> {
            long min = byRank.values().stream().mapToLong(Long::longValue).min().orElse(0);
            long max = byRank.values().stream().mapToLong(Long::longValue).max().orElse(0);
            if (min != max) {
                List<String> counts = new ArrayList<>();
                byRank.forEach((rank, n) -> counts.add("rank " + rank + ": " + n));
                out.add(ctx.warning(RULE, phase + ": ranks have different step counts (" + String.join(", ", counts)
                        + "); collectives are matched over the first " + min + " steps of each rank"));
            }
        });
    }
}
