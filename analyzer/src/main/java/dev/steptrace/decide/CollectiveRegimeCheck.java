package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import dev.steptrace.rules.Thresholds;
import java.util.List;
import java.util.Locale;

/**
 * Whether the tax's collective is latency- or bandwidth-bound: the share of its measured time per call its bytes
 * take on the wire, against this check's thresholds. The memo's facts and its options that shrink message bytes
 * read the same verdict ({@link #regime}).
 */
final class CollectiveRegimeCheck {
    static final Rule RULE = new Rule("collective-regime", Severity.INFO, "Latency or bandwidth",
            "The tax's collective moves its message bytes (from the trace, else the scenario) at hardware.link_gbps in"
                    + " some share of its measured time per call. A small share is latency-bound: compressing the"
                    + " messages would save almost nothing, fewer calls or a faster link would; a large share is"
                    + " bandwidth-bound. Unknown when the tax is not a collective, or the message size or link"
                    + " bandwidth is not known.",
            List.of(new Threshold("latency_ratio", 0.2, "",
                            "share of the time per call on the wire below which the collective is latency-bound"),
                    new Threshold("bandwidth_ratio", 0.8, "",
                            "share from which it is bandwidth-bound (mixed between the two)")),
            null);

    private CollectiveRegimeCheck() {}

    /** Latency or bandwidth of the collective behind a part, with the numbers that say so. */
    record Regime(String regime, Double msgBytes, Double wireUs, Double ratio, String evidence) {}

    /** The regime of the collective behind {@code part} of the memo {@code m}, under {@code thresholds}. */
    static Regime regime(DecisionEngine m, DecisionEngine.Part part, Thresholds thresholds) {
        Scenario s = m.scenario();
        BottleneckReport report = m.report();
        String type = DecisionEngine.collectiveType(part.spec());
        Double link = s.hardware().linkGbps();
        if (type == null) {
            return new Regime("unknown", null, null, null, part.spec() + " is not a collective");
        }
        BottleneckReport.Collective col = report.collectives().stream()
                .filter(c -> c.phase().equals(m.question().phase()) && c.type().equals(type)).findFirst().orElse(null);
        if (col == null || part.calls() <= 0) {
            return new Regime("unknown", null, null, null, "no " + type + " calls in " + m.captureSource());
        }
        double meanUs = part.meanUs();
        String latencyFact = s.hardware().collectiveLatencyUs() == null ? ""
                : "; the scenario's per-collective latency is " + Fmt.plain(s.hardware().collectiveLatencyUs())
                        + " µs (hardware.collective_latency_us)";
        if (col.msgBytes() == null) {
            return new Regime("unknown", null, null, null, String.format(Locale.ROOT,
                    "%s: %s µs per call, but message sizes are not in this trace (CUDA-graph replays and traces without "
                            + "record_param_comms carry none); an eager capture of the same step would settle it%s",
                    m.captureSource(), Fmt.us(meanUs), latencyFact));
        }
        double bytes = col.msgBytes().median();
        if (link == null) {
            return new Regime("unknown", bytes, null, null, "message " + Fmt.bytes(bytes)
                    + " per call, but the scenario sets no hardware.link_gbps to compare with");
        }
        int n = report.capture().worldSize() != null ? report.capture().worldSize() : Math.max(1, report.capture().ranks().size());
        double factor = DecisionEngine.busFactor(type, n);
        double wire = bytes * factor / (link * 1000);
        double ratio = wire / meanUs;
        double latency = thresholds.get(RULE, "latency_ratio");
        double bandwidth = thresholds.get(RULE, "bandwidth_ratio");
        String r = ratio < latency ? "latency" : ratio >= bandwidth ? "bandwidth" : "mixed";
        return new Regime(r, bytes, wire, ratio, String.format(Locale.ROOT,
                "%s per call (median, %s) x %s (%s bus factor, %d ranks) / %s GB/s (hardware.link_gbps) = %s µs on the wire, "
                        + "against %s µs measured per call: %s of the call is moving bytes, so %s (the rule: under %s of the"
                        + " call on the wire latency-bound, %s or more bandwidth-bound, mixed between)%s",
                Fmt.bytes(bytes), m.captureSource(), Fmt.plain(factor), type, n, Fmt.plain(link), Fmt.us(wire),
                Fmt.us(meanUs), Fmt.pct(100 * ratio), r.equals("mixed") ? "mixed" : r + "-bound",
                Fmt.wholePct(100 * latency), Fmt.wholePct(100 * bandwidth), latencyFact));
    }

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        Regime regime = ctx.regime();
        String summary = switch (regime.regime()) {
            case "latency" -> "Latency-bound: compressing the messages (e.g. FP8) would save almost nothing; fewer calls or a faster link would.";
            case "bandwidth" -> "Bandwidth-bound: fewer bytes per call (compression) or a faster link would shorten it.";
            case "mixed" -> "Mixed: " + Fmt.wholePct(100 * regime.ratio()) + " of each call moves bytes, the rest is latency:"
                    + " halving the bytes would save about " + Fmt.wholePct(50 * regime.ratio()) + " of it; fewer calls or a"
                    + " lower-latency path would save more.";
            default -> "Unknown: latency or bandwidth cannot be told from this capture.";
        };
        out.add(new Decision.Check(RULE, regime.regime().equals("unknown") ? Decision.Status.INFO : Decision.Status.OK,
                regime.ratio(), ctx.threshold(RULE, "latency_ratio"), summary, regime.evidence()));
    }
}
