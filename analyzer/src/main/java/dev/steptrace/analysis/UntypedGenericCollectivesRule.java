package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/** Generic collective launches ({@code ncclDevKernel_Generic}) no CPU op typed (docs/taxonomy.md). */
final class UntypedGenericCollectivesRule {
    static final Rule RULE = new Rule("untyped_generic_collectives", Severity.INFO,
            "Some generic collective kernels could not be typed.",
            "RCCL names every collective ncclDevKernel_Generic; its type is taken from the CPU op that launched"
                    + " it. Launches without one (CUDA/HIP graph replays carry none) count as Other collectives /"
                    + " nccl_generic, not as AllReduce, so the AllReduce figures may be low (docs/taxonomy.md).",
            List.of(), """
            SELECT k.rule_id, sum(s.calls) AS launches, sum(s.ns) / 1e6 AS ms
            FROM step_kernels s JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
            WHERE s.capture_id = 1 AND s.analysis_key = 'default' AND s.name LIKE 'ncclDevKernel_Generic%'
            GROUP BY k.rule_id
            """);

    private UntypedGenericCollectivesRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        try (Statement s = ctx.connection().createStatement(); ResultSet rs = s.executeQuery("""
                WITH kernels AS (
                    SELECT k.rule_id, s.calls, s.ns
                    FROM step_kernels s JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
                    WHERE %s
                )
                SELECT coalesce(sum(calls), 0), coalesce(sum(ns), 0),
                       (SELECT coalesce(sum(calls), 0) FROM kernels WHERE rule_id IN ('%s', '%s'))
                FROM kernels WHERE rule_id = '%s'
                """.formatted(ctx.where(), ContextClasses.GENERIC_ALLREDUCE, ContextClasses.GENERIC_OTHER,
                ContextClasses.GENERIC_COLLECTIVE_RULE))) {
            rs.next();
            if (rs.getLong(1) > 0) {
                out.add(new Warning(RULE, String.format(Locale.ROOT,
                        "%d launch(es) (%.2f ms) of ncclDevKernel_Generic (RCCL names every collective so) have no"
                                + " launching CPU op that names their collective (CUDA/HIP graph replays carry none): they"
                                + " count as Other collectives / nccl_generic, not as AllReduce; %d launch(es) were typed"
                                + " from their CPU op", rs.getLong(1), rs.getLong(2) / 1e6, rs.getLong(3))));
            }
        }
    }
}
