package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.util.List;

/** Enough steps in the question's phase for per-step means to hold. */
final class StepsCheck {
    /** Fewer steps per rank than this make the per-step numbers noisy. */
    static final int MIN_STEPS = 5;

    static final Rule RULE = new Rule("steps", Severity.WARNING, "Enough steps",
            "Every number of the memo is a mean per step over the question's phase; over a few steps one slow step"
                    + " moves it. Profile more steps of the phase.",
            List.of(new Threshold("min_steps", MIN_STEPS, "steps",
                    "steps per rank in the question's phase below which per-step numbers may be noisy")),
            null);

    private StepsCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        DecisionEngine m = ctx.memo();
        double steps = m.phase().steps();
        String phase = m.question().phase();
        out.add(new Decision.Check(RULE.id(), RULE.summary(), steps >= MIN_STEPS ? "ok" : "warn", steps,
                (double) MIN_STEPS, steps >= MIN_STEPS ? Fmt.count(steps) + " " + phase + " steps per rank."
                        : "Only " + Fmt.count(steps) + " " + phase + " steps per rank: per-step numbers may be noisy.",
                m.captureSource() + ", steps from " + m.phase().stepSource()));
    }
}
