package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.store.Sql;
import java.sql.SQLException;
import java.util.List;

/** No step source found any step. */
final class NoStepsRule {
    static final Rule RULE = new Rule("no_steps", Severity.SEVERE,
            "No steps were found.",
            "Every per-step figure needs steps. None of the step sources (vLLM or SGLang annotations,"
                    + " ProfilerStep, NVTX ranges, CUDA graph launches, bursts of GPU work) marked any; the report has"
                    + " no phases. Pass --step-regex to name the annotation that marks a step.",
            List.of(), """
            SELECT count(*) AS steps FROM steps WHERE capture_id = 1 AND analysis_key = 'default'
            """);

    private NoStepsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        if (Sql.count(ctx.connection(), "SELECT count(*) FROM steps WHERE " + ctx.where()) == 0) {
            out.add(new Warning(RULE, "no steps were found (source tried: " + ctx.source().id()
                    + "); pass --step-regex to name the annotation that marks a step"));
        }
    }
}
