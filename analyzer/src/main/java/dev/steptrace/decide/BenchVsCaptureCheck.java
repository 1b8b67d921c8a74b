package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.util.List;
import java.util.Locale;

/** The bench's time per output token at the capture's batch size against the capture's step period. */
final class BenchVsCaptureCheck {
    static final Rule RULE = new Rule("bench-vs-capture", Severity.WARNING, "Bench latency agrees with the capture",
            "At the bench run whose max concurrency is the capture's batch size, the mean time per output token (else"
                    + " the median inter-token latency) should be the capture's step period (GPU span plus host gap per"
                    + " step); when they differ by more than the tolerance the capture may not represent the served"
                    + " load. Only with --bench, a known batch size and a run at it.",
            List.of(new Threshold("tolerance_pct", 25, "%",
                    "difference, either way, above which the bench and the capture disagree")),
            null);

    private BenchVsCaptureCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        Decision.Bench bench = ctx.bench();
        Integer batch = ctx.memo().batch();
        Double period = ctx.period();
        if (bench == null || batch == null || period == null) {
            return;
        }
        bench.runs().stream().filter(r -> batch.equals(r.maxConcurrency()) && (r.meanTpotMs() != null || r.medianItlMs() != null))
                .findFirst().ifPresent(r -> {
                    double tpot = r.meanTpotMs() != null ? r.meanTpotMs() : r.medianItlMs();
                    double diff = 100 * (tpot - period) / period;
                    double tolerance = ctx.threshold(RULE, "tolerance_pct");
                    boolean ok = Math.abs(diff) <= tolerance;
                    out.add(new Decision.Check(RULE, DecisionCheck.Context.status(RULE, ok),
                            diff, tolerance, ok ? "At concurrency " + batch + " the bench's time per output token is within "
                            + Fmt.plain(tolerance) + "% of the capture's step period (" + Fmt.signedPct(diff) + ")."
                            : "At concurrency " + batch + " the bench's time per output token differs from the capture's step"
                            + " period by " + Fmt.signedPct(diff) + ": the capture may not represent the served load.",
                            String.format(Locale.ROOT, "%s: %s %s ms; %s: step period %s ms", r.file(),
                                    r.meanTpotMs() != null ? "mean_tpot_ms" : "median_itl_ms", Fmt.ms(tpot),
                                    ctx.memo().captureSource(), Fmt.ms(period))));
                });
    }
}
