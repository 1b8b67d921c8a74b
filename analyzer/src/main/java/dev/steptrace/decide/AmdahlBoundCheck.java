package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.List;
import java.util.Locale;

/** How much the step could gain with the tax at zero, against the question's threshold. */
final class AmdahlBoundCheck {
    static final Rule RULE = new Rule("amdahl-bound", Severity.INFO, "Amdahl bound of the tax",
            "With the tax's time at zero the step would be 1 / (1 - share) faster: no option acting on the tax"
                    + " alone can do better. Below question.min_speedup (the threshold it is compared with, the"
                    + " scenario's) nothing acting on the tax alone can pass; above it, the tax is worth attacking if"
                    + " an admissible option exists.",
            List.of(), null);

    private AmdahlBoundCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        DecisionEngine m = ctx.memo();
        DecisionEngine.Part tax = ctx.tax();
        Double amdahl = ctx.amdahl();
        double minSpeedup = m.question().minSpeedup();
        String evidence = String.format(Locale.ROOT, "%s ms of %s per step of %s ms %s (%s): 1 / (1 - %s) = %s",
                Fmt.ms(tax.ms()), tax.spec(), Fmt.ms(m.stepMs()), m.stepLabel(), m.captureSource(), Fmt.rate(ctx.share() / 100),
                amdahl == null ? "n/a" : Fmt.speedup(amdahl));
        String summary = amdahl != null && amdahl < minSpeedup
                ? "Even removing " + tax.spec() + " entirely gives at most " + Fmt.speedup(amdahl) + ", below the "
                        + m.thresholdText() + " threshold: no option acting on it alone can pass."
                : "Removing " + tax.spec() + " entirely would give up to " + (amdahl == null ? "n/a" : Fmt.speedup(amdahl))
                        + " (threshold " + m.thresholdText() + "): worth attacking if an admissible option exists.";
        out.add(new Decision.Check(RULE, Decision.Status.INFO, amdahl, minSpeedup, summary, evidence));
    }
}
