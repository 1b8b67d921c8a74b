package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.util.List;
import java.util.Locale;

/** Each burst timing of the scenario ({@code measured}) against the capture's time per call of the tax. */
final class BurstConsistencyCheck {
    static final Rule RULE = new Rule("burst-consistency", Severity.WARNING, "Burst timing agrees with the capture",
            "A burst timing in the scenario (measured, kind burst: calls in a total time) and the capture's mean time"
                    + " per call of the tax's collective should measure the same thing; when they differ by more than"
                    + " the tolerance one of them does not. One result per burst timing of the tax's collective.",
            List.of(new Threshold("tolerance_pct", 25, "%",
                    "difference per call, either way, above which the burst and the capture disagree")),
            null);

    private BurstConsistencyCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        DecisionEngine m = ctx.memo();
        DecisionEngine.Part tax = ctx.tax();
        Scenario s = m.scenario();
        BottleneckReport.Capture cap = m.report().capture();
        int world = cap.worldSize() != null ? cap.worldSize() : cap.ranks().size();
        for (Scenario.Measured measured : s.measured().values()) {
            if (measured instanceof Scenario.Burst b && tax.meanUs() != null
                    && (b.collective() == null || b.collective().equals(DecisionEngine.collectiveType(tax.spec())))) {
                double diff = 100 * (b.perCallUs() - tax.meanUs()) / tax.meanUs();
                String ev = String.format(Locale.ROOT, "measured.%s: %d calls in %s ms = %s µs per call%s; %s: %s µs per call",
                        b.name(), b.calls(), Fmt.plain(b.totalMs()), Fmt.us(b.perCallUs()),
                        b.messageBytes() == null ? "" : " of " + Fmt.bytes(b.messageBytes())
                                + (s.hardware().linkGbps() == null ? "" : " (" + Fmt.us(b.messageBytes()
                                * DecisionEngine.busFactor(DecisionEngine.collectiveType(tax.spec()),
                                s.hardware().gpus() == null ? world : s.hardware().gpus())
                                / (s.hardware().linkGbps() * 1000)) + " µs on the wire at hardware.link_gbps)"),
                        m.captureSource(), Fmt.us(tax.meanUs()));
                double tolerance = ctx.threshold(RULE, "tolerance_pct");
                boolean ok = Math.abs(diff) <= tolerance;
                out.add(new Decision.Check(RULE, DecisionCheck.Context.status(RULE, ok),
                        diff, tolerance, ok ? "The burst timing and the capture agree within "
                        + Fmt.plain(tolerance) + "% per call (" + Fmt.signedPct(diff) + ")."
                        : "The burst timing and the capture differ by " + Fmt.signedPct(diff)
                        + " per call: one of them is not measuring the same thing.", ev));
            }
        }
    }
}
