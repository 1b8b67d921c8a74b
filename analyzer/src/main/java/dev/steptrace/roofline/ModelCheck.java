package dev.steptrace.roofline;

import dev.steptrace.report.Fmt;
import dev.steptrace.store.KeptAnalysis;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a model file against what the capture's own shapes say ({@code op_shape_calls} of the kept
 * analysis, with {@code op_shapes}), where it has any (eager steps record them; CUDA-graph replays do
 * not): the hidden size the norms normalize over, the attention heads, KV heads and head size per GPU, the decode batch and KV length, the router's experts and top-k, and the
 * attention calls per decode step (one per layer). Each disagreement is a warning: a floor computed
 * from a wrong model file would mislead.
 */
final class ModelCheck {
    static final Rule RULE = new Rule("model_file_disagrees", Severity.WARNING,
            "The model file given with --model disagrees with the capture's shapes.",
            "The decode floors are computed from the model file (docs/roofline.md); when the capture's recorded"
                    + " shapes (norm width, attention heads per GPU, decode batch and context, router top-k, attention"
                    + " calls per step) say otherwise, the floors describe another model or workload and would mislead."
                    + " Fix the model file, or capture the workload it describes.",
            List.of(), "model-check-shapes");
    private static final Map<String, int[]> ATTENTION = Map.of(
            // op -> {layout: 0 = [B, H, S, D], 1 = [B, S, H, D]}
            "aten::_scaled_dot_product_flash_attention", new int[] {0},
            "aten::_scaled_dot_product_efficient_attention", new int[] {0},
            "aten::_scaled_dot_product_cudnn_attention", new int[] {0},
            "aten::_cudnn_attention_forward", new int[] {0},
            "aten::_flash_attention_forward", new int[] {1},
            "aten::_efficient_attention_forward", new int[] {1});
    private static final List<String> NORMS = List.of("aten::rms_norm", "aten::_fused_rms_norm",
            "aten::native_layer_norm", "aten::layer_norm");
    private static final Pattern LAST_INT = Pattern.compile("(\\d+)\\s*\\]\\s*$");

    private ModelCheck() {}

    /** One op's recorded shapes in a phase, with its calls and the phase's steps (query {@code model-check-shapes}). */
    private record ShapeRow(String phase, String name, String dims, String types, String concrete, double calls,
                            double steps) {}

    static List<Warning> check(KeptAnalysis analysis, ModelSpec m) throws SQLException {
        TreeSet<Long> hidden = new TreeSet<>();
        TreeSet<String> heads = new TreeSet<>();
        TreeSet<String> decodeShape = new TreeSet<>();
        TreeSet<String> routers = new TreeSet<>();
        Map<String, Double> attentionCalls = new TreeMap<>();
        List<String> names = new ArrayList<>(ATTENTION.keySet());
        names.addAll(NORMS);
        names.add("aten::topk");
        List<ShapeRow> rows = new ArrayList<>();
        analysis.query("model-check-shapes", Map.of("ops", names), rs -> rows.add(new ShapeRow(rs.getString(1),
                rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getDouble(6), rs.getDouble(7))));
        for (ShapeRow row : rows) {
            String phase = row.phase();
            String name = row.name();
            OpCall call = OpCall.parse(name, row.dims(), row.types(), row.concrete());
            if (call == null) {
                continue;
            }
            if (NORMS.contains(name) && call.arg(1) != null) {
                Matcher last = LAST_INT.matcher(call.arg(1).concrete());
                if (last.find()) {
                    hidden.add(Long.parseLong(last.group(1)));
                }
            } else if (name.equals("aten::topk") && call.tensor(0) != null && call.integer(1) != null) {
                routers.add("top-" + call.integer(1) + " of " + call.tensor(0).dim(-1));
            } else if (ATTENTION.containsKey(name)) {
                OpCall.Arg q = call.tensor(0);
                OpCall.Arg k = call.tensor(1);
                if (q == null || k == null || q.rank() != 4 || k.rank() != 4) {
                    continue;
                }
                boolean bshd = ATTENTION.get(name)[0] == 1;
                int h = bshd ? 2 : 1;
                int seq = bshd ? 1 : 2;
                heads.add(q.dim(h) + " heads, " + k.dim(h) + " KV heads of size " + q.dim(3));
                attentionCalls.merge(phase, row.calls() / row.steps(), Double::sum);
                if (phase.equals(RooflineSummary.FLOOR_PHASE)) {
                    decodeShape.add("batch " + q.dim(0) + " over " + k.dim(seq) + " keys");
                }
            }
        }
        List<Warning> out = new ArrayList<>();
        String file = "the model file " + m.file();
        if (!hidden.isEmpty() && !hidden.contains(m.hiddenSize())) {
            out.add(new Warning(RULE, file + " says hidden_size " + m.hiddenSize() + "; the capture's norms normalize over "
                    + join(hidden)));
        }
        ModelSpec.Attention a = m.attention();
        long tp = m.parallel().tp();
        if (!a.mla() && !heads.isEmpty()) {
            String expected = (a.heads() / tp) + " heads, " + Math.max(1, a.kvHeads() / tp) + " KV heads of size "
                    + a.headDim();
            if (!heads.contains(expected)) {
                out.add(new Warning(RULE, file + " means " + expected + " per GPU (tensor parallel " + tp
                        + "); the capture's attention runs " + join(heads)));
            }
        }
        String workload = "batch " + m.workload().batch() + " over " + m.workload().context() + " keys";
        if (!decodeShape.isEmpty() && !decodeShape.contains(workload)) {
            out.add(new Warning(RULE, file + " describes decode steps of " + workload
                    + "; the capture's decode attention runs " + join(decodeShape)
                    + " (its floors are for the model file's workload)"));
        }
        if (m.moe() != null && !routers.isEmpty()) {
            String expected = "top-" + m.moe().topK() + " of " + m.moe().experts();
            if (!routers.contains(expected)) {
                out.add(new Warning(RULE, file + " routes " + expected + " experts; the capture's router picks "
                        + join(routers)));
            }
        }
        Double perStep = attentionCalls.get(RooflineSummary.FLOOR_PHASE);
        if (perStep != null && Math.abs(perStep - m.layers()) > 0.5) {
            out.add(new Warning(RULE, file + " says " + m.layers() + " layers; the capture's decode steps run "
                    + Fmt.significant(Math.round(perStep * 10) / 10.0) + " attention calls per step"));
        }
        return out;
    }

    private static String join(TreeSet<?> values) {
        return String.join("; ", values.stream().map(String::valueOf).toList());
    }
}
