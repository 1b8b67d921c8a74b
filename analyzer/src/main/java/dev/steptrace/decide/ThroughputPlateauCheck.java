package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.util.List;

/** Where output throughput stops growing with concurrency in the {@code --bench} runs ({@link BenchResults}). */
final class ThroughputPlateauCheck {
    static final Rule RULE = new Rule("throughput-plateau", Severity.INFO, "Throughput plateau",
            "From the vLLM bench serve results given with --bench: the lowest concurrency after which output"
                    + " throughput grows less than the gain per doubling of concurrency. Beyond it more concurrent"
                    + " sequences mostly wait. Only with --bench.",
            List.of(new Threshold("gain_pct", BenchResults.PLATEAU_GAIN_PCT, "%",
                    "output throughput gain per doubling of concurrency below which it has plateaued")),
            null);

    private ThroughputPlateauCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        Decision.Bench bench = ctx.bench();
        if (bench == null) {
            return;
        }
        out.add(new Decision.Check(RULE.id(), RULE.summary(), "info",
                bench.plateauConcurrency() == null ? null : bench.plateauConcurrency().doubleValue(), BenchResults.PLATEAU_GAIN_PCT,
                bench.plateauConcurrency() == null ? "Output throughput still grows by more than "
                        + Fmt.plain(BenchResults.PLATEAU_GAIN_PCT) + "% per doubling of concurrency in these runs."
                        : "Output throughput plateaus at concurrency " + bench.plateauConcurrency() + " (less than "
                        + Fmt.plain(BenchResults.PLATEAU_GAIN_PCT) + "% more per doubling beyond it).",
                bench.plateauEvidence() == null ? "--bench " + String.join(", ", bench.files()) : bench.plateauEvidence()));
    }
}
