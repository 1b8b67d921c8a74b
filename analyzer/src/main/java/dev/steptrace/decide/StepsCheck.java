package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.util.List;

/** Enough steps in the question's phase for per-step means to hold. */
final class StepsCheck {
    static final Rule RULE = new Rule("steps", Severity.WARNING, "Enough steps",
            "Every number of the memo is a mean per step over the question's phase; over a few steps one slow step"
                    + " moves it. Profile more steps of the phase.",
            List.of(new Threshold("min_steps", 5, "steps",
                    "steps per rank in the question's phase below which per-step numbers may be noisy")),
            null);

    private StepsCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        DecisionEngine m = ctx.memo();
        double steps = m.phase().steps();
        String phase = m.question().phase();
        double min = ctx.threshold(RULE, "min_steps");
        out.add(new Decision.Check(RULE, DecisionCheck.Context.status(RULE, steps >= min), steps,
                min, steps >= min ? Fmt.count(steps) + " " + phase + " steps per rank."
                        : "Only " + Fmt.count(steps) + " " + phase + " steps per rank: per-step numbers may be noisy.",
                m.captureSource() + ", steps from " + m.phase().stepSource()));
    }
}
