package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.List;

/** Whether the batch size is known (docs/scenarios.md, "Batch size"), and from where. */
final class BatchSizeCheck {
    static final Rule RULE = new Rule("batch-size", Severity.WARNING, "Batch size",
            "The batch size comes from the step annotations, else a decode step's input shapes, else"
                    + " question.batch. Unknown, the options that read a measured table by batch size cannot be"
                    + " evaluated (also a batch_unknown warning).",
            List.of(), null);

    private BatchSizeCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        Integer batch = ctx.memo().batch();
        String source = ctx.memo().batchSource();
        out.add(new Decision.Check(RULE, DecisionCheck.Context.status(RULE, batch != null),
                batch == null ? null : batch.doubleValue(), null,
                batch == null ? "The batch size is unknown: options that read a measured table by batch size cannot be evaluated."
                        : "Batch " + batch + " per step.", source));
        if (batch == null) {
            warnings.add(new BottleneckReport.Warning("batch_unknown", source));
        }
    }
}
