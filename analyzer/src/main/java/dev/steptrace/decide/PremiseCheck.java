package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import dev.steptrace.rules.Thresholds;
import java.util.List;
import java.util.Locale;

/** The measured share of the tax against the question's premise ({@code question.premise_share_pct}). */
final class PremiseCheck {
    static final Rule RULE = new Rule("premise", Severity.WARNING, "The question's premise",
            "A question may say how large it takes the tax to be (question.premise_share_pct). The measurement"
                    + " contradicts it when the measured share is further from it than the factor either way; the"
                    + " memo's summary then says so. Only with question.premise_share_pct.",
            List.of(new Threshold("factor", 2, "×",
                    "how many times under or over the premise the measured share may be before it contradicts it")),
            null);

    private PremiseCheck() {}

    /** The sentence that says the measurement contradicts the question's premise, or null. */
    static String contradiction(DecisionEngine m, DecisionEngine.Part tax, double share, Thresholds thresholds) {
        Scenario.Question q = m.question();
        Double premise = q.premiseSharePct();
        double factor = thresholds.get(RULE, "factor");
        if (premise == null || (share >= premise / factor && share <= premise * factor)) {
            return null;
        }
        return String.format(Locale.ROOT, "The measurement contradicts the question's premise: %s is %s of %s %s,"
                + " not about %s%% (question.premise_share_pct).", tax.label(), Fmt.pct(share), q.phase(), m.stepLabel(),
                Fmt.plain(premise));
    }

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        DecisionEngine m = ctx.memo();
        Scenario.Question q = m.question();
        if (q.premiseSharePct() == null) {
            return;
        }
        DecisionEngine.Part tax = ctx.tax();
        String contradiction = contradiction(m, tax, ctx.share(), ctx.thresholds());
        double factor = ctx.threshold(RULE, "factor");
        out.add(new Decision.Check(RULE, DecisionCheck.Context.status(RULE, contradiction == null), ctx.share(),
                q.premiseSharePct(), contradiction != null ? contradiction : String.format(Locale.ROOT,
                "The measurement agrees with the premise: %s is %s of %s %s, the question says about %s%%.",
                tax.spec(), Fmt.pct(ctx.share()), q.phase(), m.stepLabel(), Fmt.plain(q.premiseSharePct())),
                String.format(Locale.ROOT, "question.premise_share_pct %s%%; %s: %s ms of %s ms per step (%s); contradicted"
                                + " when the measured share is under 1/%s or over %s times the premise",
                        Fmt.plain(q.premiseSharePct()), tax.spec(), Fmt.ms(tax.ms()), Fmt.ms(m.stepMs()),
                        m.captureSource(), Fmt.plain(factor), Fmt.plain(factor))));
    }
}
