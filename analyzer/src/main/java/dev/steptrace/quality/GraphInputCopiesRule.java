package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.sql.SQLException;
import java.util.List;

/**
 * CUDA graph input copies that take a large share of the GPU time of the steps that replay CUDA graphs
 * (docs/warnings.md): the operations classified memcpy / graph_input_copy (CUDA graph trees copy every non-static
 * input into the graph's static buffers before each replay, docs/taxonomy.md); query {@code graph-input-copies}.
 */
final class GraphInputCopiesRule {
    static final Rule RULE = new Rule("graph_input_copies", Severity.WARNING,
            "CUDA graph input copies take a large share of the step.",
            "torch.compile's CUDA graph trees (mode=\"reduce-overhead\") copy every input that is not at a static"
                    + " address into the graph's own buffers before each replay (aten::_foreach_copy_, kernels"
                    + " multi_tensor_apply_kernel<... Copy ...>). Inputs that are new tensors every step (a fresh KV"
                    + " cache view, a sliced or re-created tensor) are copied in full; keep them at fixed addresses"
                    + " (static input buffers written in place, torch._dynamo.mark_static_address) so the replay"
                    + " reads them where they are. The share is of the GPU time of the steps that replay CUDA graphs.",
            List.of(new Threshold("min_share_pct", 10, "%",
                    "share of the GPU time of the phase's steps that replay CUDA graphs in graph input copies from"
                            + " which it is reported")),
            "graph-input-copies");

    private GraphInputCopiesRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        double min = ctx.threshold(RULE, "min_share_pct");
        ctx.evidence(RULE, rs -> {
            String phase = rs.getString(1);
            String ops = rs.getString(2);
            long copyNs = rs.getLong(3);
            long calls = rs.getLong(4);
            long gpuNs = rs.getLong(5);
            long largestOther = rs.getLong(6); // 0 when NULL: nothing else ran
            long steps = rs.getLong(7);
            long stepNs = rs.getLong(8);
            if (gpuNs <= 0 || steps == 0) {
                return;
            }
            double pct = 100.0 * copyNs / gpuNs;
            if (pct < min) {
                return;
            }
            out.add(ctx.warning(RULE, phase + ": CUDA graph input copies take " + Fmt.pct(pct) + " of the GPU time of the "
                    + steps + " step(s) that replay CUDA graphs" + (copyNs > largestOther ? ", its largest part" : "")
                    + " (" + Fmt.ms(copyNs / 1e6 / steps) + " ms and " + Fmt.plain((double) calls / steps)
                    + " copy kernel(s) per step, launched by " + (ops == null ? "(no CPU op)" : ops)
                    + (stepNs > 0 ? "; " + Fmt.pct(100.0 * copyNs / stepNs) + " of their step time" : "")
                    + "; at least " + Fmt.plain(min) + "% is reported): the graph copies inputs that are not at static"
                    + " addresses into its own buffers before every replay. Keep those inputs at fixed addresses (static"
                    + " input buffers written in place, torch._dynamo.mark_static_address) or pass no new tensors to"
                    + " the compiled function"));
        });
    }
}
