package dev.steptrace.quality;

import dev.steptrace.ingest.InputDamage;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

/** A file that loaded only in part: damaged, truncated, or with content ingest could not trust. */
final class PartialFileRule {
    static final Rule RULE = new Rule("partial_file", Severity.SEVERE,
            "A file of the capture is incomplete or damaged.",
            "Ingest kept what it could read before the damage (a truncated gzip member, a cut-off JSON array)"
                    + " or flagged content that may be wrong; that rank's figures miss the events after the damage, and"
                    + " its steps past where the file's work ends are not counted as its steps. Re-copy or re-capture"
                    + " the file.",
            List.of(), "capture-files");

    private PartialFileRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        ctx.evidence(RULE, rs -> {
            if (!"partial".equals(rs.getString(5))) {
                return;
            }
            String file = Path.of(rs.getString(3)).getFileName().toString();
            String reason = String.valueOf(rs.getString(6));
            out.add(ctx.warning(RULE, reason.startsWith(InputDamage.CONTENT_MAY_BE_WRONG)
                    ? "rank " + rs.getObject(2) + ": " + file + ": " + reason + "; this rank's figures may be wrong"
                    : "rank " + rs.getObject(2) + ": " + file + " is incomplete (" + reason
                            + "); events after the damage are missing"));
        });
    }
}
