package dev.steptrace.quality;

import dev.steptrace.common.Messages;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
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
            List.of(), "capture-files");

    private MissingRanksRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        Set<Integer> ranks = new TreeSet<>();
        Integer[] worldSize = {null};
        ctx.evidence(RULE, rs -> {
            if (rs.getObject(2) != null) {
                ranks.add(rs.getInt(2));
            }
            if (rs.getObject(4) != null) {
                worldSize[0] = worldSize[0] == null ? rs.getInt(4) : Math.max(worldSize[0], rs.getInt(4));
            }
        });
        if (worldSize[0] != null && ranks.size() < worldSize[0]) {
            List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < worldSize[0]; r++) {
                if (!ranks.contains(r)) {
                    missing.add(r);
                }
            }
            out.add(ctx.warning(RULE, "the traces say world size " + worldSize[0] + " but only " + ranks.size()
                    + " rank file(s) are in the capture; missing ranks " + Messages.ranges(missing)
                    + " (figures across ranks cover only the ranks present)"));
        }
    }
}
