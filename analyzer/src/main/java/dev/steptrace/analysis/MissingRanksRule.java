package dev.steptrace.analysis;

import dev.steptrace.common.Messages;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** Fewer rank files than the world size the traces state. */
final class MissingRanksRule {
    static final Rule RULE = new Rule("missing_ranks", Severity.WARNING,
            "The traces state a larger world size than the ranks the capture holds.",
            "Figures across ranks (stragglers, collective waits, the spread between ranks) cover only the ranks"
                    + " present; a missing rank may be the straggler. Profile every rank, or accept that the"
                    + " cross-rank figures are partial.",
            List.of(), """
            SELECT max(world_size) AS world_size, count(DISTINCT rank) AS ranks_present,
                   list(DISTINCT rank ORDER BY rank) AS ranks
            FROM files WHERE capture_id = 1
            """);

    private MissingRanksRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) {
        Set<Integer> ranks = new TreeSet<>();
        Integer worldSize = null;
        for (CaptureScope.FileInfo f : ctx.scope().files()) {
            if (f.rank() != null) {
                ranks.add(f.rank());
            }
            if (f.worldSize() != null) {
                worldSize = worldSize == null ? f.worldSize() : Math.max(worldSize, f.worldSize());
            }
        }
        if (worldSize != null && ranks.size() < worldSize) {
            List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < worldSize; r++) {
                if (!ranks.contains(r)) {
                    missing.add(r);
                }
            }
            out.add(new Warning(RULE, "the traces say world size " + worldSize + " but only " + ranks.size()
                    + " rank file(s) are in the capture; missing ranks " + Messages.ranges(missing)
                    + " (figures across ranks cover only the ranks present)"));
        }
    }
}
