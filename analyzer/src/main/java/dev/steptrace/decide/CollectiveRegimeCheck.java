package dev.steptrace.decide;

import dev.steptrace.report.Fmt;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.util.List;

/** Whether the tax's collective is latency- or bandwidth-bound ({@link DecisionEngine#regime}). */
final class CollectiveRegimeCheck {
    static final Rule RULE = new Rule("collective-regime", Severity.INFO, "Latency or bandwidth",
            "The tax's collective moves its message bytes (from the trace, else the scenario) at hardware.link_gbps in"
                    + " some share of its measured time per call. A small share is latency-bound: compressing the"
                    + " messages would save almost nothing, fewer calls or a faster link would; a large share is"
                    + " bandwidth-bound. Unknown when the tax is not a collective, or the message size or link"
                    + " bandwidth is not known.",
            List.of(new Threshold("latency_ratio", DecisionEngine.REGIME_THRESHOLD, "",
                            "share of the time per call on the wire below which the collective is latency-bound"),
                    new Threshold("bandwidth_ratio", DecisionEngine.REGIME_BANDWIDTH, "",
                            "share from which it is bandwidth-bound (mixed between the two)")),
            null);

    private CollectiveRegimeCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        DecisionEngine.Regime regime = ctx.regime();
        String summary = switch (regime.regime()) {
            case "latency" -> "Latency-bound: compressing the messages (e.g. FP8) would save almost nothing; fewer calls or a faster link would.";
            case "bandwidth" -> "Bandwidth-bound: fewer bytes per call (compression) or a faster link would shorten it.";
            case "mixed" -> "Mixed: " + Fmt.wholePct(100 * regime.ratio()) + " of each call moves bytes, the rest is latency:"
                    + " halving the bytes would save about " + Fmt.wholePct(50 * regime.ratio()) + " of it; fewer calls or a"
                    + " lower-latency path would save more.";
            default -> "Unknown: latency or bandwidth cannot be told from this capture.";
        };
        out.add(new Decision.Check(RULE.id(), RULE.summary(), regime.regime().equals("unknown") ? "info" : "ok",
                regime.ratio(), DecisionEngine.REGIME_THRESHOLD, summary, regime.evidence()));
    }
}
