package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.List;

/** Whether the capture's analysis raised capture-quality warnings (docs/warnings.md). */
final class CaptureQualityCheck {
    static final Rule RULE = new Rule("capture-quality", Severity.WARNING, "Capture quality",
            "The capture's report warnings (docs/warnings.md) say where its figures are approximate or may be wrong;"
                    + " the memo's numbers are the report's, so they inherit them. The memo lists the warnings.",
            List.of(), null);

    private CaptureQualityCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        List<BottleneckReport.Warning> capWarnings = ctx.memo().report().warnings();
        out.add(new Decision.Check(RULE, DecisionCheck.Context.status(RULE, capWarnings.isEmpty()),
                (double) capWarnings.size(), 0.0,
                capWarnings.isEmpty() ? "The analysis raised no capture-quality warning." : capWarnings.size()
                        + " capture-quality warning(s); see the warnings below.",
                capWarnings.isEmpty() ? "capture " + ctx.memo().report().capture().name()
                        : capWarnings.stream().map(BottleneckReport.Warning::code).reduce((a, b) -> a + ", " + b).orElse("")));
    }
}
