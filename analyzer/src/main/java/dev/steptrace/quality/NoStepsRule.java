package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/** No step source found any step. */
final class NoStepsRule {
    static final Rule RULE = new Rule("no_steps", Severity.SEVERE,
            "No steps were found.",
            "Every per-step figure needs steps. None of the step sources (vLLM or SGLang annotations,"
                    + " ProfilerStep, NVTX ranges, CUDA graph launches, bursts of GPU work) marked any; the report has"
                    + " no phases. Pass --step-regex to name the annotation that marks a step.",
            List.of(), "step-count");

    private NoStepsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        ctx.evidence(RULE, rs -> {
            if (rs.getLong(1) == 0) {
                out.add(ctx.warning(RULE, "no steps were found (source tried: " + ctx.source().id()
                        + "); pass --step-regex to name the annotation that marks a step"));
            }
        });
    }
}
