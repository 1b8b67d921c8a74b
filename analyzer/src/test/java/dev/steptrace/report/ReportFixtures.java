package dev.steptrace.report;

import dev.steptrace.common.PathPart;
import dev.steptrace.common.StepPart;
import dev.steptrace.report.BottleneckReport.Capture;
import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.CategoryWait;
import dev.steptrace.report.BottleneckReport.Collective;
import dev.steptrace.report.BottleneckReport.HostBound;
import dev.steptrace.report.BottleneckReport.HostSync;
import dev.steptrace.report.BottleneckReport.IdleCpuOp;
import dev.steptrace.report.BottleneckReport.LaunchDelay;
import dev.steptrace.report.BottleneckReport.MessageBytes;
import dev.steptrace.report.BottleneckReport.Overlap;
import dev.steptrace.report.BottleneckReport.PartShare;
import dev.steptrace.report.BottleneckReport.PartialFile;
import dev.steptrace.report.BottleneckReport.PerStep;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import dev.steptrace.report.BottleneckReport.RankPhase;
import dev.steptrace.report.BottleneckReport.RankSummary;
import dev.steptrace.report.BottleneckReport.RankStepTime;
import dev.steptrace.report.BottleneckReport.RankValue;
import dev.steptrace.report.BottleneckReport.Stat;
import dev.steptrace.report.BottleneckReport.StepTime;
import dev.steptrace.report.BottleneckReport.Straggler;
import dev.steptrace.report.BottleneckReport.StragglerSpot;
import dev.steptrace.report.BottleneckReport.SubcategoryShare;
import dev.steptrace.report.BottleneckReport.Tool;
import dev.steptrace.report.BottleneckReport.TopKernel;
import dev.steptrace.report.BottleneckReport.Warning;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Report models for the writer tests: the reference Kimi-K2.5 TP8 decode table (8 ranks, 20 decode
 * steps), a short prefill phase with the fields a trace may not support left null, and kernel names
 * that break naive HTML and Markdown ({@code <}, {@code >}, {@code &}, pipes, backticks, long names).
 */
final class ReportFixtures {
    private ReportFixtures() {}

    static final String ESCAPE_NAME = "void k<a, b>(x&)";
    static final String PIPE_NAME = "fused_moe|marlin<`int4`>";
    static final String LONG_NAME = "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GemmShape<128, 128, 64>,"
            + " cutlass::epilogue::collective::EpilogueTmaWarpSpecialized<float, cutlass::bfloat16_t>>>(cutlass::gemm::kernel::Params)";
    static final String NCCL_NAME = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

    static final int RANKS = 8;
    static final int DECODE_STEPS = 20;
    static final int PREFILL_STEPS = 2;

    /** Decode categories in category order, not by time: id, ms/step, share, calls/step. */
    private static final Object[][] DECODE = {
        {"allreduce", 11.17, 51.5, 127.0},
        {"attention", 3.32, 15.3, 61.0},
        {"moe_gemm", 2.40, 11.1, 122.0},
        {"gemm", 2.90, 13.4, 244.0},
        {"routing", 0.99, 4.5, 183.0},
        {"other", 0.92, 4.2, 310.0},
    };
    private static final Object[][] PREFILL = {
        {"gemm", 41.2, 55.0, 244.0},
        {"attention", 18.6, 24.8, 61.0},
        {"allreduce", 15.1, 20.2, 127.0},
    };

    /** Per-rank offsets of kernel ms per step (sum 0): rank 3 has the least kernel time, rank 5 the most. */
    private static final double[] RANK_DELTA = {0.05, -0.08, 0.02, -0.29, 0.06, 0.32, -0.04, -0.04};
    /**
     * Per-rank collective wait, ms per step: rank 6, the straggler, hardly waits. Compute (kernel time
     * minus wait) is least on rank 1 (20.92) and most on rank 6 (21.61).
     */
    private static final double[] RANK_WAIT = {0.62, 0.70, 0.58, 0.40, 0.61, 0.90, 0.05, 0.63};

    /**
     * Decode's step time, 25.00 ms: the kernel categories of {@link #DECODE} less the wait (3.10 ms of all-reduce
     * time waits for the straggler, rank 6), plus 3.30 ms of GPU idle time. The parts sum to 25.00.
     */
    static StepTime decodeStepTime() {
        Object[][] parts = {
            {"comm_allreduce", 8.07}, {"attention", 3.32}, {"comm_wait", 3.10}, {"gemm", 2.90}, {"moe_gemm", 2.40},
            {"idle_before", 1.50}, {"idle_after", 1.25}, {"routing", 0.99}, {"other", 0.92}, {"idle_other", 0.50},
            {"idle_launch", 0.05},
        };
        List<PartShare> shares = new ArrayList<>();
        for (Object[] p : parts) {
            shares.add(new PartShare((String) p[0], StepPart.labelOf((String) p[0]), (double) p[1], 4 * (double) p[1]));
        }
        return new StepTime(25.0, new Stat(25.0, 24.9, 25.6, new RankValue(6, 24.95), new RankValue(5, 25.05)), 6,
                "it waits least for the other ranks at collectives (0.05 ms per step; the most is 0.90 ms)", shares,
                shares, pathShares(25, new Object[][] {{"moe_gemm", 12.4}, {"comm_allreduce", 8.07}, {"attention", 2.9},
                        {"gap", 0.88}, {"comm_wait", 0.45}, {"launch", 0.3}}), 2.10, 312, 0,
                List.of(new HostSync("cudaMemcpyAsync", "aten::_local_scalar_dense", 1, 0.02, 0.4)),
                List.of(new IdleCpuOp("aten::_local_scalar_dense", "cpu_op", 0.4, 1)),
                "Exposed all-reduce transfer takes 32.3% of the step (8.07 ms): overlapping it with compute hides it;"
                        + " a faster interconnect shortens it.");
    }

    /** Prefill's step time, 82.00 ms: eager launches leave the GPU waiting 7.10 ms; the rest is its kernels. */
    static StepTime prefillStepTime() {
        List<PartShare> shares = List.of(
                new PartShare("gemm", StepPart.labelOf("gemm"), 41.2, 100 * 41.2 / 82),
                new PartShare("attention", StepPart.labelOf("attention"), 18.6, 100 * 18.6 / 82),
                new PartShare("comm_allreduce", StepPart.labelOf("comm_allreduce"), 15.1, 100 * 15.1 / 82),
                new PartShare("idle_launch", StepPart.labelOf("idle_launch"), 7.1, 100 * 7.1 / 82));
        return new StepTime(82.0, new Stat(82.0, 82.0, 82.4, null, null), 0, "the only rank with prefill steps", shares,
                shares, pathShares(82, new Object[][] {{"gemm", 41.2}, {"attention", 18.6}, {"comm_allreduce", 15.1},
                        {"cpu", 4.6}, {"launch", 2.5}}), 0, 1464, 0, List.of(), List.of(), "The GPU is busy: Other GEMMs takes 50.2% of the step (41.20 ms);"
                        + " idle time is 8.7% of the step, so faster Other GEMMs shorten it.");
    }

    /** Critical-path parts {id, ms per step} of a step of {@code stepMs}, largest first. */
    private static List<PartShare> pathShares(double stepMs, Object[][] parts) {
        List<PartShare> out = new ArrayList<>();
        for (Object[] p : parts) {
            out.add(new PartShare((String) p[0], PathPart.labelOf((String) p[0]), (double) p[1], 100 * (double) p[1] / stepMs));
        }
        return out;
    }

    static ReportContent kimi() {
        Capture capture = new Capture("/data/traces/kimi-k2.5-int4-tp8/decode-bs1", "decode-bs1", "kineto", 8,
                List.of(0, 1, 2, 3, 4, 5, 6, 7), 8,
                List.of("NVIDIA RTX PRO 6000 Blackwell Server Edition"),
                List.of(new PartialFile("rank7.pt.trace.json.gz", "truncated gzip at byte 1234567: kept 2104331 events before the cut")));

        Map<String, PhaseSummary> phases = new LinkedHashMap<>();
        phases.put("decode", new PhaseSummary(DECODE_STEPS, "vllm_annotation", decodeStepTime(),
                new Stat(21.70, 21.68, 22.05, new RankValue(3, 21.41), new RankValue(5, 22.02)),
                new Stat(24.31, 24.25, 24.90, new RankValue(3, 24.02), new RankValue(5, 24.66)),
                new Stat(21.22, 21.20, 21.61, new RankValue(3, 20.93), new RankValue(5, 21.55)),
                new Stat(0.41, 0.38, 0.62, new RankValue(1, 0.35), new RankValue(6, 0.47)),
                computeStat(), categories(DECODE), decodeKernels(), decodeStragglers(),
                new Overlap(11.17, 2.10, 9.07, 18.8),
                new HostBound(0.90, 0.05, 0.85, 0.2, false, List.of(new LaunchDelay("memcpy", 1, 25.1, 21.7, 40.2)),
                        1, new PerStep(412.0, 398.5, 520.3))));
        phases.put("prefill", new PhaseSummary(PREFILL_STEPS, "vllm_annotation", prefillStepTime(),
                new Stat(74.9, 74.9, 75.3, null, null),
                new Stat(80.2, null, null, null, null),
                new Stat(null, null, null, null, null),
                null, null,
                categories(PREFILL),
                List.of(new TopKernel("nvjet_tst_128x256_64x4_2x1_v_bz_coopB_TNN", "gemm", null, "gemm.nvjet", 30.1, 122.0, 246.7)),
                null, null,
                // Prefill launched eagerly by a slow host: the GPU waits for launches 22.8% of the span.
                new HostBound(22.0, 18.3, 3.7, 22.8, true,
                        List.of(new LaunchDelay("gemm", 244, 5.2, 4.1, 7.9), new LaunchDelay("attention", 61, 6.0, 5.5, 9.3)),
                        0, null)));

        List<Collective> collectives = List.of(
                new Collective("decode", "allreduce", 127, 88.0, new MessageBytes(14336), 1.2, 3.10, 8.07),
                new Collective("decode", "all_gather", 1, 25.3, null, null, null, null),
                new Collective("prefill", "allreduce", 127, 118.9, new MessageBytes(2.75e7), 18.4, 4.2, 10.9));

        List<RankSummary> ranks = new ArrayList<>();
        for (int r = 0; r < RANKS; r++) {
            double d = RANK_DELTA[r];
            List<CategoryShare> cats = new ArrayList<>();
            for (Object[] c : DECODE) {
                double ms = (double) c[1] + ("allreduce".equals(c[0]) ? d : 0);
                cats.add(new CategoryShare((String) c[0], ReportCategories.label((String) c[0], null), ms,
                        100 * ms / (21.70 + d), (double) c[3], List.of()));
            }
            Map<String, RankPhase> rp = new LinkedHashMap<>();
            double w = RANK_WAIT[r];
            rp.put("decode", new RankPhase(DECODE_STEPS,
                    new RankStepTime(new PerStep(25.0, 24.9, 25.6), List.of(
                            new PartShare("comm_allreduce", StepPart.labelOf("comm_allreduce"), 8.07 + d, 100 * (8.07 + d) / 25),
                            new PartShare("comm_wait", StepPart.labelOf("comm_wait"), w, 100 * w / 25),
                            new PartShare("idle_before", StepPart.labelOf("idle_before"), 16.93 - d - w, 100 * (16.93 - d - w) / 25))),
                    new PerStep(21.70 + d, 21.68 + d, 22.05 + d),
                    new PerStep(24.31 + d, 24.25 + d, 24.90 + d), new PerStep(21.70 + d - w, 21.68 + d - w, 22.05 + d - w),
                    new PerStep(w, w, w), cats));
            if (r != 7) { // rank 7's prefill steps were lost with the truncated file
                rp.put("prefill", new RankPhase(PREFILL_STEPS,
                        new RankStepTime(new PerStep(82.0, 82.0, 82.4), prefillStepTime().parts()), new PerStep(74.9, 74.9, 75.3), new PerStep(80.2, null, null),
                        null, null, categories(PREFILL)));
            }
            ranks.add(new RankSummary(r, rp));
        }

        List<Warning> warnings = List.of(
                new Warning("partial_file", "rank7.pt.trace.json.gz is truncated: its last 0.4 s are missing"),
                new Warning("launch_fallback", "12 kernels have no launch <in the trace> & were attributed by GPU time window"));

        BottleneckReport report = new BottleneckReport(BottleneckReport.SCHEMA, new Tool("steptrace", "0.1.0-test"),
                capture, phases, collectives, ranks, warnings);
        return new ReportContent(report, steps());
    }

    /** Compute ms per step across ranks: kernel time minus collective wait, rank 1 least, rank 6 most. */
    private static Stat computeStat() {
        double sum = 0;
        RankValue min = null;
        RankValue max = null;
        for (int r = 0; r < RANKS; r++) {
            double v = 21.70 + RANK_DELTA[r] - RANK_WAIT[r];
            sum += v;
            min = min == null || v < min.value() ? new RankValue(r, v) : min;
            max = max == null || v > max.value() ? new RankValue(r, v) : max;
        }
        return new Stat(sum / RANKS, sum / RANKS, sum / RANKS + 0.2, min, max);
    }

    /** Rank 6 arrives last at 80% of the 127 all-reduces of each of the 20 steps and is named; rank 5 is not. */
    private static List<Straggler> decodeStragglers() {
        return List.of(
                new Straggler(6, true, 2032, 80.0, 0.62, 88.6,
                        List.of(new StragglerSpot("allreduce", 61, 100.0, 0.05, "moe_gemm"),
                                new StragglerSpot("allreduce", 7, 95.0, 0.04, "attention")),
                        List.of(new CategoryWait("moe_gemm", 0.434, 70.0), new CategoryWait("attention", 0.186, 30.0))),
                new Straggler(5, false, 300, 11.8, 0.06, 8.6, List.of(), List.of()),
                new Straggler(1, false, 208, 8.2, 0.02, 2.8, List.of(), List.of()));
    }

    private static List<CategoryShare> categories(Object[][] rows) {
        List<CategoryShare> l = new ArrayList<>();
        for (Object[] c : rows) {
            String id = (String) c[0];
            l.add(new CategoryShare(id, ReportCategories.label(id, null), (double) c[1], (double) c[2], (double) c[3],
                    List.of(new SubcategoryShare(id + "_main", (double) c[1], (double) c[3]))));
        }
        return l;
    }

    private static List<TopKernel> decodeKernels() {
        return List.of(
                new TopKernel(NCCL_NAME, "allreduce", null, "nccl.allreduce", 8.90, 122.0, 73.0),
                new TopKernel(ESCAPE_NAME, "attention", "decode_attention", "attn.generic", 3.32, 61.0, 54.4),
                new TopKernel(LONG_NAME, "gemm", null, "gemm.cutlass", 2.90, 244.0, 11.9),
                new TopKernel(PIPE_NAME, "moe_gemm", "marlin", "moe.marlin", 2.40, 122.0, 19.7),
                new TopKernel("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, "
                        + "vllm::Signal*, __nv_bfloat16*, int, int)", "allreduce", "custom_allreduce", "vllm.custom_ar", 2.27, 5.0, 454.0),
                new TopKernel("void vllm::moe::topkGatingSoftmax<8, 384, 4, 16, 64>(float const*, bool const*, float*, int, int*, int*, int, int, int)",
                        "routing", "topk", "routing.topk", 0.61, 61.0, 10.0),
                new TopKernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul>>(int, "
                        + "at::native::FillFunctor<float>, std::array<char*, 1ul>)", "other", "elementwise", "other.elementwise", 0.0031, 2.0, 1.6));
    }

    private static List<StepPoint> steps() {
        List<StepPoint> steps = new ArrayList<>();
        for (int r = 0; r < RANKS; r++) {
            for (int i = 0; i < DECODE_STEPS; i++) {
                double kernel = 21.70 + RANK_DELTA[r] + 0.25 * Math.sin(i * 0.7 + r) + (i == 13 ? 0.6 : 0);
                Map<String, Double> cats = new LinkedHashMap<>();
                for (Object[] c : DECODE) {
                    cats.put((String) c[0], (double) c[1]);
                }
                steps.add(new StepPoint(r, "decode", i, "execute_context_0(0)_generation_" + (i + 8) + "(" + (i + 8) + ")",
                        kernel, kernel * 1.12, kernel * 0.978, i == 0 ? null : 0.35 + 0.1 * ((i * 7 + r) % 4) + (i == 13 && r == 5 ? 1.9 : 0),
                        cats, 25.0 + 0.3 * Math.sin(i * 0.7) + (i == 13 ? 2.5 : 0)));
            }
            if (r != 7) {
                for (int i = 0; i < PREFILL_STEPS; i++) {
                    steps.add(new StepPoint(r, "prefill", i, "execute_context_4(8192)_generation_0(0)", 74.9 + i * 0.4,
                            80.2, 74.0, null, Map.of("gemm", 41.2, "attention", 18.6, "allreduce", 15.1), 82.0 + i * 0.4));
                }
            }
        }
        return steps;
    }

    /** A capture with nothing usable: no phases, no steps, no ranks, unknown everything. */
    static ReportContent empty() {
        BottleneckReport report = new BottleneckReport(BottleneckReport.SCHEMA, new Tool("steptrace", null),
                new Capture("/data/empty", null, null, 0, List.of(), null, List.of(), List.of()),
                Map.of(), List.of(), List.of(), List.of(new Warning("no_steps", "No steps found: no annotations, no graph launches, no GPU activity")));
        return new ReportContent(report, List.of());
    }
}
