package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
        try (Statement s = ctx.connection().createStatement(); ResultSet rs = s.executeQuery("SELECT nvtx_note FROM"
                + " file_checks WHERE " + ctx.where() + " AND nvtx_note IS NOT NULL ORDER BY rank, file_id")) {
            while (rs.next()) {
                out.add(new Warning(RULE, rs.getString(1) + "; the steps come from the next source, "
                        + ctx.source().id()));
            }
        }
    }
}
