package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/** NVTX ranges were tried as the step source and rejected ({@link StepDetector} notes why, per rank). */
final class NvtxRangesNotStepsRule {
    static final Rule RULE = new Rule("nvtx_ranges_not_steps", Severity.INFO,
            "The capture's NVTX ranges do not mark steps; the steps come from the next source.",
            "Steps are taken from NVTX ranges only when a family of top-level ranges repeats and holds most of the"
                    + " GPU work its thread launched (docs/formats.md, steps from NVTX); ranges named per layer are not"
                    + " steps. The message names the family that came closest. Pass --step-regex to name the range"
                    + " that marks a step.",
            List.of(), "file-checks");

    private NvtxRangesNotStepsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        ctx.evidence(RULE, rs -> {
            if (rs.getString(9) != null) {
                out.add(ctx.warning(RULE, rs.getString(9) + "; the steps come from the next source, " + ctx.source().id()));
            }
        });
    }
}
