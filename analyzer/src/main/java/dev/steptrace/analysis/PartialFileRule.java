package dev.steptrace.analysis;

import dev.steptrace.ingest.InputDamage;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.List;

/** A file that loaded only in part: damaged, truncated, or with content ingest could not trust. */
final class PartialFileRule {
    static final Rule RULE = new Rule("partial_file", Severity.SEVERE,
            "A file of the capture is incomplete or damaged.",
            "Ingest kept what it could read before the damage (a truncated gzip member, a cut-off JSON array)"
                    + " or flagged content that may be wrong; that rank's figures miss the events after the damage, and"
                    + " its steps past where the file's work ends are not counted as its steps. Re-copy or re-capture"
                    + " the file.",
            List.of(), """
            SELECT rank, path, status, partial_reason FROM files
            WHERE capture_id = 1 AND status = 'partial' ORDER BY rank, path
            """);

    private PartialFileRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) {
        for (CaptureScope.FileInfo f : ctx.scope().files()) {
            if (!"partial".equals(f.status())) {
                continue;
            }
            String reason = String.valueOf(f.partialReason());
            out.add(new Warning(RULE, reason.startsWith(InputDamage.CONTENT_MAY_BE_WRONG)
                    ? "rank " + f.rank() + ": " + f.path().getFileName() + ": " + reason + "; this rank's figures may"
                            + " be wrong"
                    : "rank " + f.rank() + ": " + f.path().getFileName() + " is incomplete (" + reason
                            + "); events after the damage are missing"));
        }
    }
}
