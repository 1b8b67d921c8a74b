package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.Stat;
import dev.steptrace.report.BottleneckReport.SubcategoryShare;
import dev.steptrace.report.BottleneckReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bottleneck reports for the engine tests, built by hand: the reference Kimi-K2.5 TP8 decode table
 * (8 RTX PRO 6000, all-reduce 11.17 of 21.70 ms, 127 calls) and the 2x H200 NVLink sample's
 * numbers, with or without collective message sizes.
 */
final class DecisionFixtures {
    private DecisionFixtures() {}

    static final String RTX = "NVIDIA RTX PRO 6000 Blackwell Server Edition";

    /** The reference decode table (docs/synth.md); {@code msgBytes} null as under CUDA graphs. */
    static BottleneckReport spec(Double msgBytes) {
        return report("kimi-tp8", RTX, 8, 20, 25.0, 0.37, msgBytes, List.of(
                cat("allreduce", 11.17, 127, sub("custom", 10.99, 122), sub("nccl", 0.18, 5)),
                cat("attention", 3.32, 122),
                cat("gemm", 2.90, 550),
                cat("moe_gemm", 2.40, 122),
                cat("routing", 0.99, 183),
                cat("other", 0.92, 554)));
    }

    /** sample-traces/h200-tp2-moe-decode/graph-nccl-ll as the report sees it (rounded). */
    static BottleneckReport h200() {
        return report("graph-nccl-ll", "NVIDIA H200", 2, 10, 38.1, 0.2, null, List.of(
                cat("moe_gemm", 25.83, 122),
                cat("gemm", 4.27, 550),
                cat("other", 3.85, 1593),
                cat("allreduce", 0.96, 123, sub("nccl", 0.96, 123)),
                cat("routing", 0.86, 244),
                cat("attention", 0.32, 61),
                cat("memcpy", 0.17, 188),
                cat("comm_other", 0.01, 1, sub("all_gather", 0.01, 1))));
    }

    static CategoryShare cat(String id, double ms, double calls, SubcategoryShare... subs) {
        return new CategoryShare(id, id, ms, 0, calls, List.of(subs));
    }

    static SubcategoryShare sub(String id, double ms, double calls) {
        return new SubcategoryShare(id, ms, calls);
    }

    static BottleneckReport report(String name, String device, int ranks, double steps, double spanMs, double hostGapMs,
                                   Double msgBytes, List<CategoryShare> cats) {
        double total = cats.stream().mapToDouble(CategoryShare::msPerStep).sum();
        List<CategoryShare> withShares = new ArrayList<>();
        for (CategoryShare c : cats) {
            withShares.add(new CategoryShare(c.id(), c.label(), c.msPerStep(), 100 * c.msPerStep() / total, c.callsPerStep(),
                    c.subcategories()));
        }
        List<Integer> rankList = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            rankList.add(r);
        }
        Map<String, BottleneckReport.PhaseSummary> phases = new LinkedHashMap<>();
        phases.put("decode", new BottleneckReport.PhaseSummary(steps, "vllm_annotation", null, stat(total), stat(spanMs),
                stat(total * 0.97), stat(hostGapMs), null, withShares, List.of(), null, null, null));
        List<BottleneckReport.Collective> collectives = new ArrayList<>();
        for (CategoryShare c : withShares) {
            if (c.id().equals("allreduce")) {
                collectives.add(new BottleneckReport.Collective("decode", "allreduce", c.callsPerStep(),
                        c.msPerStep() * 1000 / c.callsPerStep(),
                        msgBytes == null ? null : new BottleneckReport.MessageBytes(msgBytes), null, 0.1, c.msPerStep() - 0.1));
            }
        }
        return new BottleneckReport(BottleneckReport.SCHEMA, new BottleneckReport.Tool("steptrace", "test"),
                new BottleneckReport.Capture("/data/" + name, name, "kineto", ranks, rankList, ranks, List.of(device), List.of()),
                phases, collectives, List.of(), List.of());
    }

    private static Stat stat(double v) {
        return new Stat(v, v, v, null, null);
    }

    static CaptureBatch batch(int b) {
        return new CaptureBatch(b, 20, 20, "vLLM step annotation execute_context_0(0)_generation_" + b + "(" + b + ")");
    }
}
