package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import dev.steptrace.rules.Thresholds;
import java.util.List;
import java.util.Locale;

/** Where output throughput stops growing with concurrency in the {@code --bench} runs (the plateau, {@link #plateau}, is also decision.json's bench.plateau_concurrency). */
final class ThroughputPlateauCheck {
    static final Rule RULE = new Rule("throughput-plateau", Severity.INFO, "Throughput plateau",
            "From the vLLM bench serve results given with --bench: the lowest concurrency after which output"
                    + " throughput grows less than the gain per doubling of concurrency. Beyond it more concurrent"
                    + " sequences mostly wait. Only with --bench.",
            List.of(new Threshold("gain_pct", 10, "%",
                    "output throughput gain per doubling of concurrency below which it has plateaued")),
            null);

    private ThroughputPlateauCheck() {}

    /** The plateau's concurrency and what says so; both null when there is none. */
    record Plateau(Integer concurrency, String evidence) {}

    /**
     * The lowest concurrency after which every later run's output throughput grows less than the threshold's gain
     * per doubling of concurrency.
     */
    static Plateau plateau(List<Decision.BenchRun> runs, Thresholds thresholds) {
        double gainPct = thresholds.get(RULE, "gain_pct");
        List<Decision.BenchRun> byC = runs.stream()
                .filter(r -> r.maxConcurrency() != null && r.outputThroughput() != null).toList();
        for (int i = 0; i + 1 < byC.size(); i++) {
            boolean flat = true;
            for (int j = i + 1; j < byC.size(); j++) {
                Decision.BenchRun a = byC.get(i);
                Decision.BenchRun b = byC.get(j);
                double doublings = Math.log((double) b.maxConcurrency() / a.maxConcurrency()) / Math.log(2);
                double gain = 100 * (b.outputThroughput() / a.outputThroughput() - 1);
                if (doublings <= 0 || gain > gainPct * doublings) {
                    flat = false;
                    break;
                }
            }
            if (flat) {
                Decision.BenchRun a = byC.get(i);
                Decision.BenchRun last = byC.get(byC.size() - 1);
                return new Plateau(a.maxConcurrency(), String.format(Locale.ROOT,
                        "output throughput %s tok/s at concurrency %d (%s), %s tok/s at %d (%s): %s for %sx the concurrency",
                        Fmt.tokensPerSec(a.outputThroughput()), a.maxConcurrency(), a.file(),
                        Fmt.tokensPerSec(last.outputThroughput()), last.maxConcurrency(), last.file(),
                        Fmt.signedPct(100 * (last.outputThroughput() / a.outputThroughput() - 1)),
                        Fmt.plain((double) last.maxConcurrency() / a.maxConcurrency())));
            }
        }
        return new Plateau(null, null);
    }

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        Decision.Bench bench = ctx.bench();
        if (bench == null) {
            return;
        }
        double gainPct = ctx.threshold(RULE, "gain_pct");
        out.add(new Decision.Check(RULE, Decision.Status.INFO,
                bench.plateauConcurrency() == null ? null : bench.plateauConcurrency().doubleValue(), gainPct,
                bench.plateauConcurrency() == null ? "Output throughput still grows by more than "
                        + Fmt.plain(gainPct) + "% per doubling of concurrency in these runs."
                        : "Output throughput plateaus at concurrency " + bench.plateauConcurrency() + " (less than "
                        + Fmt.plain(gainPct) + "% more per doubling beyond it).",
                bench.plateauEvidence() == null ? "--bench " + String.join(", ", bench.files()) : bench.plateauEvidence()));
    }
}
