package dev.steptrace.quality;

import dev.steptrace.common.Phase;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CUDA graph input copies that take a large share of the step (docs/warnings.md): the operations classified
 * memcpy / graph_input_copy (CUDA graph trees copy every non-static input into the graph's static buffers before
 * each replay, docs/taxonomy.md), in a phase that replays CUDA graphs; query {@code graph-input-copies}.
 */
final class GraphInputCopiesRule {
    static final Rule RULE = new Rule("graph_input_copies", Severity.WARNING,
            "CUDA graph input copies take a large share of the step.",
            "torch.compile's CUDA graph trees (mode=\"reduce-overhead\") copy every input that is not at a static"
                    + " address into the graph's own buffers before each replay (aten::_foreach_copy_, kernels"
                    + " multi_tensor_apply_kernel<... Copy ...>). Inputs that are new tensors every step (a fresh KV"
                    + " cache view, a sliced or re-created tensor) are copied in full; keep them at fixed addresses"
                    + " (static input buffers written in place, torch._dynamo.mark_static_address) so the replay"
                    + " reads them where they are.",
            List.of(new Threshold("min_share_pct", 10, "%",
                    "share of the phase's step time in graph input copies from which it is reported")),
            "graph-input-copies");

    private GraphInputCopiesRule() {}

    private static final class PhaseCopies {
        long ns;
        long calls;
        long steps;
        long stepNs;
        long graphLaunches;
        final List<String> ops = new ArrayList<>();
    }

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        Map<String, PhaseCopies> phases = new TreeMap<>(Comparator.comparingInt(Phase.IDS::indexOf));
        ctx.evidence(RULE, rs -> {
            PhaseCopies p = phases.computeIfAbsent(rs.getString(1), k -> new PhaseCopies());
            String op = rs.getString(2);
            p.ops.add(op == null ? "(no CPU op)" : op);
            p.ns += rs.getLong(3);
            p.calls += rs.getLong(4);
            p.steps = rs.getLong(5);
            p.stepNs = rs.getLong(6);
            p.graphLaunches = rs.getLong(7);
        });
        double min = ctx.threshold(RULE, "min_share_pct");
        phases.forEach((phase, p) -> {
            if (p.graphLaunches == 0 || p.stepNs <= 0 || p.steps == 0) {
                return; // copies outside CUDA graph replays are no graph's inputs
            }
            double pct = 100.0 * p.ns / p.stepNs;
            if (pct >= min) {
                out.add(ctx.warning(RULE, phase + ": CUDA graph input copies take " + Fmt.pct(pct) + " of the step time ("
                        + Fmt.ms(p.ns / 1e6 / p.steps) + " ms and " + Fmt.plain((double) p.calls / p.steps)
                        + " copy kernel(s) per step, launched by " + String.join(", ", p.ops) + "; at least "
                        + Fmt.plain(min) + "% is reported): the graph copies inputs that are not at static addresses"
                        + " into its own buffers before every replay. Keep those inputs at fixed addresses (static"
                        + " input buffers written in place, torch._dynamo.mark_static_address) or pass no new tensors"
                        + " to the compiled function"));
            }
        });
    }
}
