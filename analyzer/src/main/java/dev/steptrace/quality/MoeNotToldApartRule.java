package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A capture that looks like an MoE model whose MoE GEMMs and routing got no time (docs/warnings.md): the experts and
 * the router ran as kernels whose names say nothing of MoE, and nothing around their launches told them apart
 * (docs/taxonomy.md, "Classes from the launching op"); query {@code moe-evidence}.
 */
final class MoeNotToldApartRule {
    static final Rule RULE = new Rule("moe_not_told_apart", Severity.WARNING,
            "The capture looks like an MoE model, but no kernel time is MoE GEMMs or routing.",
            "An MoE layer written in torch runs its experts as plain GEMMs (a loop of aten::mm) and its router as"
                    + " generic top-k, sort and softmax kernels: by name they are Other GEMMs and Everything else."
                    + " steptrace tells them apart by what encloses their launch: an annotation"
                    + " (torch.profiler.record_function('moe_experts'), 'moe_router') or the nn.Module ranges of"
                    + " with_modules=True. Without either, the MoE share of the step is hidden in other categories.",
            List.of(), "moe-evidence");

    private MoeNotToldApartRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        long[] moeNs = new long[1];
        long[] allToAll = new long[2];
        List<String> names = new ArrayList<>();
        ctx.evidence(RULE, rs -> {
            switch (rs.getString(1)) {
                case "moe_time" -> moeNs[0] = rs.getLong(3);
                case "all_to_all" -> {
                    allToAll[0] += rs.getLong(3);
                    allToAll[1] += rs.getLong(4);
                }
                default -> names.add(rs.getString(2));
            }
        });
        if (moeNs[0] > 0 || (allToAll[1] == 0 && names.isEmpty())) {
            return;
        }
        List<String> says = new ArrayList<>();
        if (allToAll[1] > 0) {
            says.add(allToAll[1] + " all-to-all launch(es), " + Fmt.ms(allToAll[0] / 1e6) + " ms (expert-parallel"
                    + " dispatch and combine)");
        }
        if (!names.isEmpty()) {
            says.add("ops, annotations or modules named " + String.join(", ", names.subList(0, Math.min(5, names.size())))
                    + (names.size() > 5 ? " and " + (names.size() - 5) + " more" : ""));
        }
        out.add(ctx.warning(RULE, "the capture looks like an MoE model (" + String.join("; ", says) + "), but no kernel"
                + " time is MoE GEMMs or routing: its experts and router ran as kernels whose names do not say MoE, and"
                + " nothing around their launches told them apart, so their time is in Other GEMMs and Everything"
                + " else. Wrap the experts and the router in torch.profiler.record_function('moe_experts') /"
                + " ('moe_router'), or profile with with_modules=True"));
    }
}
