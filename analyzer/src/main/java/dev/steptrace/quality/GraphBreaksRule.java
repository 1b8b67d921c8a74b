package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/**
 * Graph breaks in the compiled function (docs/warnings.md): a compiled region entered inside another one (Dynamo's
 * resume function after a break) or GPU work launched eagerly between two compiled regions of a step; query
 * {@code graph-breaks}.
 */
final class GraphBreaksRule {
    static final Rule RULE = new Rule("graph_breaks", Severity.WARNING,
            "The compiled function breaks into several graphs every step.",
            "A graph break ends Dynamo's graph where it cannot trace (data-dependent Python control flow, .item(),"
                    + " print, an unsupported call) and compiles the code after it as another frame, its resume"
                    + " function: the step then runs several graphs with eager Python between them, each with its own"
                    + " launch overhead and, under mode=\"reduce-overhead\", its own CUDA graph replay and input copies."
                    + " Find the breaks with TORCH_LOGS=graph_breaks or torch._dynamo.explain, rewrite the code that"
                    + " breaks, and compile with fullgraph=True so that a new break is an error.",
            List.of(), "graph-breaks");

    private GraphBreaksRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        CompileEvents events = new CompileEvents();
        ctx.evidence(RULE, events::add);
        events.phases().forEach((phase, p) -> {
            String resumed = p.list("resumed_region", false);
            StringBuilder eager = new StringBuilder();
            p.kind("eager_between").forEach((op, v) -> eager.append(eager.length() == 0 ? "" : ", ").append(op)
                    .append(" (").append(v[0]).append(" launch(es), ").append(Fmt.plain(v[1] / 1e3)).append(" µs of GPU time)"));
            out.add(ctx.warning(RULE, phase + ": the compiled function breaks into several graphs in " + p.steps.size()
                    + (p.phaseSteps > 0 ? " of " + p.phaseSteps : "") + " step(s) (" + CompileEvents.steps(p.steps, 3)
                    + (resumed.isEmpty() ? "" : "; resume functions after a break: " + resumed + " entered inside"
                            + " another compiled region")
                    + (eager.length() == 0 ? "" : "; launched eagerly between compiled regions: " + eager) + "). Find"
                    + " the break with TORCH_LOGS=graph_breaks or torch._dynamo.explain, rewrite the code that breaks"
                    + " (data-dependent control flow, .item(), print, unsupported calls) and compile with"
                    + " fullgraph=True"));
        });
    }
}
