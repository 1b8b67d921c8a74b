package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import dev.steptrace.rules.Threshold;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Host syncs inside the steps that replay CUDA graphs (docs/warnings.md): a CPU op that waits for the GPU mid-step
 * (.item(), .cpu(), nonzero()) leaves the GPU idle until the next replay is launched; query {@code graph-step-syncs}.
 */
final class HostSyncsInGraphStepsRule {
    static final Rule RULE = new Rule("host_syncs_in_graph_steps", Severity.WARNING,
            "Host syncs inside steps that replay CUDA graphs leave the GPU idle.",
            "CUDA graphs remove the launch overhead only while the CPU runs ahead of the GPU. An op that waits for"
                    + " the GPU inside the step (.item() as aten::_local_scalar_dense, .cpu(), .tolist(), nonzero(),"
                    + " a copy to pageable host memory) stops the CPU until the GPU drains, and the GPU then idles"
                    + " until the CPU launches the next replay. Keep such values on the GPU (torch.where instead of a"
                    + " Python branch, preallocated outputs), move the sync after the step's last replay, or record"
                    + " the work after it into the graph. Syncs issued by no CPU op (torch.cuda.synchronize() of the"
                    + " serving loop) are not counted.",
            List.of(new Threshold("min_idle_us", 20, "µs",
                    "GPU idle time per graph-replaying step caused by one op's syncs from which it is reported")),
            "graph-step-syncs");

    private HostSyncsInGraphStepsRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        double min = ctx.threshold(RULE, "min_idle_us");
        Map<String, Map<String, long[]>> byPhase = new LinkedHashMap<>(); // phase -> op -> calls, idle, steps
        Map<String, Map<String, List<String>>> callsOf = new LinkedHashMap<>();
        ctx.evidence(RULE, rs -> {
            long[] v = byPhase.computeIfAbsent(rs.getString(1), k -> new LinkedHashMap<>())
                    .computeIfAbsent(rs.getString(2), k -> new long[3]);
            v[0] += rs.getLong(4);
            v[1] += rs.getLong(6);
            v[2] = rs.getLong(7);
            callsOf.computeIfAbsent(rs.getString(1), k -> new LinkedHashMap<>())
                    .computeIfAbsent(rs.getString(2), k -> new ArrayList<>()).add(rs.getString(3));
        });
        byPhase.forEach((phase, ops) -> {
            List<String> named = new ArrayList<>();
            long steps = 0;
            for (Map.Entry<String, long[]> e : ops.entrySet()) {
                long[] v = e.getValue();
                steps = v[2];
                double idleUs = v[2] == 0 ? 0 : v[1] / 1e3 / v[2];
                if (idleUs >= min) {
                    named.add(e.getKey() + " (" + String.join(", ", callsOf.get(phase).get(e.getKey())) + ", "
                            + Fmt.plain((double) v[0] / v[2]) + " call(s) and " + Fmt.plain(idleUs)
                            + " µs of GPU idle time per step)");
                }
            }
            if (!named.isEmpty()) {
                out.add(ctx.warning(RULE, phase + ": host syncs inside the " + steps + " step(s) that replay CUDA graphs"
                        + " leave the GPU idle: " + String.join("; ", named) + "; at least " + Fmt.plain(min)
                        + " µs per step is reported. The CPU waits for the GPU mid-step, and the next replay starts"
                        + " only after it: keep the value on the GPU, move the sync after the step's last replay, or"
                        + " record the work after it into the graph"));
            }
        });
    }
}
