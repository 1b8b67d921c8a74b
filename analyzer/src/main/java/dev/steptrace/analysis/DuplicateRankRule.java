package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Several files that claim the same rank. */
final class DuplicateRankRule {
    static final Rule RULE = new Rule("duplicate_rank", Severity.SEVERE,
            "Several files claim the same rank.",
            "A capture holds one file per rank; two files of one rank (two runs copied into one directory, or a"
                    + " trace and its copy) are read as one rank, so its per-step figures mix the two runs. Keep one"
                    + " file per rank, or ingest the runs as separate captures.",
            List.of(), """
            SELECT rank, count(*) AS files, string_agg(path, ', ' ORDER BY path) AS paths FROM files
            WHERE capture_id = 1 AND rank IS NOT NULL GROUP BY rank HAVING count(*) > 1 ORDER BY rank
            """);

    private DuplicateRankRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) {
        Map<Integer, Integer> perRank = new TreeMap<>();
        for (CaptureScope.FileInfo f : ctx.scope().files()) {
            if (f.rank() != null) {
                perRank.merge(f.rank(), 1, Integer::sum);
            }
        }
        perRank.forEach((rank, n) -> {
            if (n > 1) {
                out.add(new Warning(RULE, n + " files claim rank " + rank + "; per-rank figures mix them"));
            }
        });
    }
}
