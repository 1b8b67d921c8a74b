package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
            List.of(), """
            SELECT step_source FROM analyses WHERE capture_id = 1 AND analysis_key = 'default'
            """);

    private NvtxRangesNotStepsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        try (PreparedStatement ps = ctx.connection().prepareStatement("SELECT message FROM t_step_notes WHERE code = ?")) {
            ps.setString(1, RULE.id());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Warning(RULE, rs.getString(1) + "; the steps come from the next source, "
                            + ctx.source().id()));
                }
            }
        }
    }
}
