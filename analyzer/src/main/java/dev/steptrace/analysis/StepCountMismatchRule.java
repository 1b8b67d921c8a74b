package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** Ranks with different numbers of steps of a phase. */
final class StepCountMismatchRule {
    static final Rule RULE = new Rule("step_count_mismatch", Severity.WARNING,
            "Ranks have different step counts in a phase.",
            "Collectives are matched across ranks by (phase, step position): when the ranks' profiling windows"
                    + " start or stop at different steps, only the first steps that every rank has are matched, and"
                    + " a rank's extra steps count in its own figures only. Start and stop the profiler on the same"
                    + " step of every rank.",
            List.of(), """
            SELECT phase, rank, count(*) AS steps FROM steps
            WHERE capture_id = 1 AND analysis_key = 'default' GROUP BY phase, rank ORDER BY phase, rank
            """);

    private StepCountMismatchRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        try (Statement s = ctx.connection().createStatement(); ResultSet rs = s.executeQuery("""
                SELECT phase, string_agg('rank ' || rank || ': ' || n, ', ' ORDER BY rank), min(n), max(n)
                FROM (SELECT phase, rank, count(*) AS n FROM step_metrics WHERE %s GROUP BY phase, rank)
                GROUP BY phase HAVING min(n) <> max(n) ORDER BY phase
                """.formatted(ctx.where()))) {
            while (rs.next()) {
                out.add(new Warning(RULE, rs.getString(1) + ": ranks have different step counts ("
                        + rs.getString(2) + "); collectives are matched over the first " + rs.getLong(3)
                        + " steps of each rank"));
            }
        }
    }
}
