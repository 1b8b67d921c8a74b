package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/** Steps whose phase (prefill, decode, mixed) could not be told. */
final class UnknownPhaseRule {
    static final Rule RULE = new Rule("unknown_phase", Severity.WARNING,
            "Some steps have no phase.",
            "A step's phase comes from vLLM's step counts in its annotation, else from a prefill/extend/decode"
                    + " annotation inside it. Steps with neither are reported under an unknown phase, apart from"
                    + " prefill and decode, so per-phase figures leave them out.",
            List.of(), "step-count");

    private UnknownPhaseRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        ctx.evidence(RULE, rs -> {
            long unknown = rs.getLong(2);
            if (unknown > 0) {
                out.add(ctx.warning(RULE, unknown + " step(s) have no phase: no vLLM step counts and no"
                        + " prefill/extend/decode annotation inside them"));
            }
        });
    }
}
