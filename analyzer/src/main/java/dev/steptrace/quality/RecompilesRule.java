package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/**
 * torch.compile recompiling inside the captured steps (docs/warnings.md): Dynamo / Inductor compilation in a step, or
 * a compiled region with a new recompile number ('Torch-Compiled Region: N/M', M > 0) first entered after the
 * capture's first step; query {@code recompiles}.
 */
final class RecompilesRule {
    static final Rule RULE = new Rule("recompiles", Severity.WARNING,
            "torch.compile recompiles during the captured steps.",
            "Dynamo guards each compiled frame on what it saw (shapes, dtypes, Python values); an input that fails the"
                    + " guards compiles the frame again ('Torch-Compiled Region: N/M' with a new M), which takes"
                    + " seconds of CPU time in that step, and under mode=\"reduce-overhead\" records new CUDA graphs"
                    + " after it. Find the failing guard with TORCH_LOGS=recompiles; mark the dimension that changes"
                    + " dynamic (torch._dynamo.mark_dynamic, dynamic=True) or pad inputs to shapes compiled before,"
                    + " and compile every shape before serving.",
            List.of(), "recompiles");

    private RecompilesRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        CompileEvents events = new CompileEvents();
        ctx.evidence(RULE, events::add);
        events.phases().forEach((phase, p) -> {
            String compile = p.list("compile", true);
            String regions = p.list("new_region", false);
            long[] frames = p.kind("compile").getOrDefault("entire_frame_compile", new long[2]);
            out.add(ctx.warning(RULE, phase + ": torch.compile compiled again in " + p.steps.size() + " captured step(s) ("
                    + CompileEvents.steps(p.steps, 4) + (compile.isEmpty() ? "" : ": " + compile)
                    + (regions.isEmpty() ? "" : "; new compiled regions " + regions) + ")"
                    + (frames[0] > 0 ? ", " + frames[0] + " frame(s) in " + Fmt.ms(frames[1] / 1e6) + " ms of CPU time" : "")
                    + ": an input failed the guards of the compiled code (a new shape, dtype or Python value). Find the"
                    + " guard with TORCH_LOGS=recompiles, then mark the changing dimension dynamic"
                    + " (torch._dynamo.mark_dynamic) or pad inputs to shapes compiled before, and compile every shape"
                    + " before serving"));
        });
    }
}
