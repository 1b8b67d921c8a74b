package dev.steptrace.report;

import dev.steptrace.common.StepPart;
import dev.steptrace.report.BottleneckReport.PartialFile;
import dev.steptrace.report.BottleneckReport.Tool;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.CaptureDiff.CategoryDelta;
import dev.steptrace.report.CaptureDiff.CollectiveDelta;
import dev.steptrace.report.CaptureDiff.CollectiveSide;
import dev.steptrace.report.CaptureDiff.Delta;
import dev.steptrace.report.CaptureDiff.CallsDelta;
import dev.steptrace.report.CaptureDiff.KernelDelta;
import dev.steptrace.report.CaptureDiff.MsPerStepDelta;
import dev.steptrace.report.CaptureDiff.Method;
import dev.steptrace.report.CaptureDiff.PartDelta;
import dev.steptrace.report.CaptureDiff.PhaseDiff;
import dev.steptrace.report.CaptureDiff.RankPair;
import dev.steptrace.report.CaptureDiff.Side;
import dev.steptrace.report.CaptureDiff.StepTimeDiff;
import dev.steptrace.report.CaptureDiff.SubcategoryDelta;
import dev.steptrace.report.CaptureDiff.ValuePair;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A diff model for the writer tests: decode with all-reduce significantly faster (the reference Kimi
 * table as A), a kernel added and one removed, a kernel called twice as often, kernel names that break
 * naive HTML and Markdown, and a one-step prefill phase without intervals.
 */
final class DiffFixtures {
    private DiffFixtures() {}

    static CaptureDiff kimi() {
        List<CategoryDelta> decodeCats = List.of(
                cat("allreduce", 11.17, 8.90, new double[] {-2.41, -2.13}, true, 127, 127,
                        List.of(sub("custom", 10.99, 8.72, new double[] {-2.40, -2.14}, true, 122, 122),
                                sub("nccl", 0.18, 0.18, new double[] {-0.01, 0.01}, false, 5, 5))),
                cat("attention", 3.32, 3.36, new double[] {0.02, 0.06}, true, 61, 122, List.of()),
                cat("moe_gemm", 2.40, 2.401, new double[] {-0.003, 0.004}, false, 122, 122, List.of()),
                cat("gemm", 2.90, 2.899, new double[] {-0.004, 0.002}, false, 244, 244, List.of()),
                cat("routing", 0.99, 0.99, new double[] {-0.001, 0.001}, false, 183, 183, List.of()),
                cat("other", 0.92, 0.921, new double[] {-0.002, 0.003}, false, 310, 310, List.of()));
        List<KernelDelta> kernels = List.of(
                kernel(ReportFixtures.NCCL_NAME, List.of(ReportFixtures.NCCL_NAME), "allreduce", "custom", "changed",
                        10.99, 8.72, new double[] {-2.40, -2.14}, true, 122, 122),
                kernel(ReportFixtures.ESCAPE_NAME, List.of(ReportFixtures.ESCAPE_NAME), "attention", "decode_attention",
                        "changed", 3.32, 3.36, new double[] {0.02, 0.06}, true, 61, 122),
                kernel(ReportFixtures.PIPE_NAME, List.of(ReportFixtures.PIPE_NAME), "moe_gemm", "marlin", "added",
                        0, 0.05, new double[] {0.049, 0.051}, true, 0, 2),
                kernel(ReportFixtures.LONG_NAME, List.of(ReportFixtures.LONG_NAME), "gemm", "cutlass", "removed",
                        0.04, 0, new double[] {-0.041, -0.039}, true, 1, 0),
                kernel("void k<(float*)0x*>(Params)", List.of("void k<(float*)0x7f00a0>(Params)", "void k<(float*)0x7f00b8>(Params)"),
                        "other", "elementwise", "changed", 0.2, 0.2001, new double[] {-0.001, 0.001}, false, 10, 10));
        Delta kernel = delta(21.70, 19.47, new double[] {-2.35, -2.11}, true);
        Delta span = delta(22.10, 19.90, new double[] {-2.31, -2.09}, true);
        List<CollectiveDelta> collectives = List.of(new CollectiveDelta("allreduce",
                new CollectiveSide(127, 88.0, 14336.0, 1.2, 0.44, 10.73),
                new CollectiveSide(127, 70.1, 14336.0, 1.5, 0.30, 8.60), -17.9, -20.3, 0.3, -0.14, -2.13));
        Map<String, PhaseDiff> phases = new LinkedHashMap<>();
        // Decode's step: 25.00 -> 22.60 ms; its exposed all-reduce transfer and waits shrank, the straggler moved.
        StepTimeDiff decodeStep = new StepTimeDiff(delta(25.00, 22.60, new double[] {-2.55, -2.28}, true), List.of(
                part("comm_allreduce", 8.07, 6.12, new double[] {-2.05, -1.86}, true),
                part("comm_wait", 3.10, 2.66, new double[] {-0.52, -0.37}, true),
                part("attention", 3.32, 3.36, new double[] {0.02, 0.06}, true),
                part("idle_before", 1.50, 1.50, new double[] {-0.02, 0.02}, false)),
                new RankPair(6, 3), new RankPair(6, null), new ValuePair(18.8, 24.0));
        phases.put("decode", new PhaseDiff(CaptureDiff.Verdict.FASTER, 20, 20, decodeStep, kernel, span, decodeCats,
                kernels, collectives));
        phases.put("prefill", new PhaseDiff(CaptureDiff.Verdict.NO_SIGNIFICANT_CHANGE, 1, 1,
                new StepTimeDiff(delta(480.0, 474.0, null, false), List.of(), new RankPair(0, 0), new RankPair(null, null),
                        new ValuePair(null, null)),
                delta(465.0, 460.0, null, false), delta(470.0, 466.0, null, false),
                List.of(cat("allreduce", 254.0, 250.0, null, false, 127, 127, List.of())), List.of(), List.of()));
        Side a = new Side("/data/kimi/nccl-simple", "nccl-simple", "kineto", 8, List.of(0, 1, 2, 3, 4, 5, 6, 7), 8,
                List.of("NVIDIA RTX PRO 6000 Blackwell"), List.of(), "vllm_annotation", Map.of("decode", 20.0, "prefill", 1.0),
                List.of());
        Side b = new Side("/data/kimi/custom-ar", "custom-ar <&>", "kineto", 8, List.of(0, 1, 2, 3, 4, 5, 6, 7), 8,
                List.of("NVIDIA RTX PRO 6000 Blackwell"), List.of(new PartialFile("/data/kimi/custom-ar/rank3.json.gz", "truncated gzip")),
                "vllm_annotation", Map.of("decode", 20.0, "prefill", 1.0),
                List.of(new Warning("partial_file", "rank3.json.gz is cut <after> 1 GB & kept")));
        return new CaptureDiff(CaptureDiff.SCHEMA, new Tool("steptrace", "test"), a, b,
                new Method("percentile_bootstrap", "step", 2000, 1, 0.95, 1.0, 0.05, 10.0, 0.001, "hex literals masked"),
                phases, List.of(new Warning("few_steps", "Prefill: 1 steps per rank in A and 1 in B"),
                        new Warning("partial_files", "B has 1 partial file (cut or damaged): its steps may be incomplete")));
    }

    private static Delta delta(double a, double b, double[] ci, boolean sig) {
        return new Delta(a, b, b - a, 100 * (b - a) / a, ci == null ? null : List.of(ci[0], ci[1]), 0.01 * a, sig);
    }

    private static PartDelta part(String id, double a, double b, double[] ci, boolean sig) {
        return new PartDelta(id, StepPart.labelOf(id), a, b, b - a, 100 * (b - a) / a, List.of(ci[0], ci[1]), 0.01 * a, sig);
    }

    private static CategoryDelta cat(String id, double a, double b, double[] ci, boolean sig, double ca, double cb,
                                     List<SubcategoryDelta> subs) {
        return new CategoryDelta(id, ReportCategories.label(id, id), a, b, b - a, 100 * (b - a) / a,
                ci == null ? null : List.of(ci[0], ci[1]), 0.01 * a, sig, ca, cb, subs);
    }

    private static SubcategoryDelta sub(String id, double a, double b, double[] ci, boolean sig, double ca, double cb) {
        return new SubcategoryDelta(id, a, b, b - a, 100 * (b - a) / a, List.of(ci[0], ci[1]), 0.01 * a, sig, ca, cb);
    }

    private static KernelDelta kernel(String name, List<String> raw, String cat, String sub, String change, double a,
                                      double b, double[] ci, boolean sig, double ca, double cb) {
        return new KernelDelta(name, raw, cat, sub, change, new MsPerStepDelta(a, b, b - a,
                a == 0 ? null : 100 * (b - a) / a, List.of(ci[0], ci[1]), Math.max(0.01 * a, 0.001), sig),
                new CallsDelta(ca, cb, cb - ca, Math.abs(cb - ca) >= 0.5, ca == 0 ? null : a / ca * 1000,
                        cb == 0 ? null : b / cb * 1000));
    }
}
