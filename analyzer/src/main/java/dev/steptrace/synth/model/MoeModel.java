package dev.steptrace.synth.model;

import dev.steptrace.classify.Category;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The reference workload (docs/synth.md) as a kernel sequence: Kimi-K2.5 INT4 (61 MLA + MoE layers, Marlin
 * W4A16 experts, hidden size 7168) served by vLLM with tensor parallelism over PCIe. Kernel names
 * come from {@code docs/reference/kernel-names.md}; each one is chosen so that the ordered rules proposed
 * there put it in the category this model says, which keeps EXPECTED.json an honest ground truth
 * for a name-based classifier.
 *
 * <p>Durations are calibrated per category: each kernel has a relative weight, and the weights of a
 * category are scaled so that one step adds up to the category's target (for decode, the reference table of docs/synth.md:
 * all-reduce 11.17 ms, attention 3.32, GEMM 2.90, MoE GEMM 2.40, routing 0.99, everything else 0.92).
 * Per decode step this gives 127 all-reduces (122 vLLM custom + 5 NCCL), 122 attention kernels
 * (Triton MLA decode, stage 1 and stage 2 per layer), 122 Marlin MoE GEMMs and 183 routing kernels.
 * Durations do not depend on the batch size; the batch only changes annotations and message sizes.
 */
final class MoeModel {
    static final int LAYERS = 61;
    static final int HIDDEN = 7168;
    static final int PREFILL_TOKENS = 2048;
    /** NCCL all-reduces per step outside the layers: one after the vocab-parallel embedding, four on the logits. */
    static final int EXTRA_NCCL_ALLREDUCES = 5;

    private static final Map<Category, Double> DECODE_TARGET_MS = targets(11.17, 3.32, 2.40, 2.90, 0.99, 0.92);
    /** 2048-token prefill over PCIe: dominated by 127 NCCL all-reduces of 29 MB each. */
    private static final Map<Category, Double> PREFILL_TARGET_MS = targets(254.0, 31.0, 72.0, 88.0, 4.1, 15.5);
    private static final long DECODE_MEMCPY_NS = 1_552;
    private static final long PREFILL_MEMCPY_NS = 1_664;

    private static final int SMS = 188;

    // --- names (demangled, as Kineto prints them) ---
    private static final String FUSED_ADD_RMS_NORM = "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists,"
            + " void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*,"
            + " c10::BFloat16 const*, float, int, int)";
    private static final String RMS_NORM = "void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(c10::BFloat16*,"
            + " c10::BFloat16 const*, long, long, long, long, long, c10::BFloat16 const*, float, int, int)";
    private static final String ROTARY = "void vllm::rotary_embedding_kernel<c10::BFloat16, false>(long const*,"
            + " c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)";
    private static final String CONCAT_AND_CACHE_MLA = "void vllm::concat_and_cache_mla_kernel<__nv_bfloat16, __nv_bfloat16,"
            + " (vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16*, long const*,"
            + " int, int, int, int, int, int, float const*)";
    private static final String ACT_AND_MUL = "void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>,"
            + " (bool)1>(c10::BFloat16*, c10::BFloat16 const*, int)";
    private static final String ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<c10::BFloat16>,"
            + " std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<c10::BFloat16>, std::array<char*, 2ul>)";
    private static final String MASK_MUL = "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<long, long, long,"
            + " at::native::binary_internal::MulFunctor<long> >, std::array<char*, 3ul> >(int, at::native::BinaryFunctor<long,"
            + " long, long, at::native::binary_internal::MulFunctor<long> >, std::array<char*, 3ul>)";
    private static final String INDEX_SELECT = "void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long,"
            + " unsigned int, 2, 2, -2>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>,"
            + " at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const,"
            + " unsigned int>, int, int, unsigned int, long)";
    private static final String TO_FLOAT = "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
            + "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1},"
            + " std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>,"
            + " at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int,"
            + " at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}"
            + "::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>, TrivialOffsetCalculator<1, unsigned int>,"
            + " TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)";
    private static final String ARGMAX = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float,"
            + " at::native::ArgMaxOps<float>, unsigned int, long, 4> >(at::native::ReduceOp<float,"
            + " at::native::ArgMaxOps<float>, unsigned int, long, 4>)";
    private static final String NCCL_ALLREDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    private static final String TRITON_MLA_STAGE1 = "_fwd_grouped_kernel_stage1";
    private static final String TRITON_MLA_STAGE2 = "_fwd_kernel_stage2";
    private static final String FLASH_PREFILL = "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<192, 128, 64, 4, false, false,"
            + " cutlass::bfloat16_t, Flash_kernel_traits<192, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false,"
            + " true, true, false, false>(flash::Flash_fwd_params)";
    private static final String MARLIN_SIGNATURE = "(int4 const*, int4 const*, int4*, int4*, int4 const*, int4 const*, int4 const*,"
            + " int const*, int const*, int const*, int const*, int const*, float const*, int, bool, bool, bool, int, int, int,"
            + " int, int*, bool, bool, bool, int)";
    private static final String MARLIN_W13 = "void marlin_moe_wna16::Marlin<1125899906909960l, 562949953487106l, 1125899906909960l,"
            + " 1125899906909960l, 128, 1, 8, 8, false, 4, 8, false, 4, 2, false>" + MARLIN_SIGNATURE;
    private static final String MARLIN_W2 = "void marlin_moe_wna16::Marlin<1125899906909960l, 562949953487106l, 1125899906909960l,"
            + " 1125899906909960l, 128, 1, 4, 8, false, 4, 8, false, 4, 2, false>" + MARLIN_SIGNATURE;
    private static final String TOPK_GATING = "void vllm::moe::topkGatingSoftmax<4, 384, 4, 16, 32, int>(float const*, bool const*,"
            + " float*, int, int*, int*, int, int, int, bool)";
    private static final String MOE_ALIGN = "void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int,"
            + " int, int, unsigned long, int*, int)";
    private static final String COUNT_AND_SORT = "void vllm::moe::count_and_sort_expert_tokens_kernel<int>(int const*, int*, int*,"
            + " unsigned long, int)";
    private static final String SPLITK_REDUCE = "void cublasLt::splitKreduce_kernel<32, 16, int, __nv_bfloat16, __nv_bfloat16, float,"
            + " __nv_bfloat16, true, false, false>(cublasLt::cublasSplitKParams<float>, __nv_bfloat16 const*, __nv_bfloat16 const*,"
            + " __nv_bfloat16*, float const*, float const*, __nv_bfloat16 const*, float const*, __nv_bfloat16*, void*, long, float*, int*)";
    private static final String GEMM_QKV_A = "nvjet_tst_192x8_64x8_4x1_v_bz_TNT";
    private static final String GEMM_SMALL = "nvjet_tst_64x8_64x16_4x1_v_bz_TNT";
    private static final String GEMM_BMM = "nvjet_tst_64x32_64x16_2x1_2cta_v_bz_TNN";
    private static final String GEMM_SPLITK = "nvjet_tst_64x8_64x16_4x1_v_bz_splitK_TNT";
    private static final String GEMM_GATE = "nvjet_tst_64x16_64x16_2x4_2cta_h_bz_TNT";
    private static final String GEMM_LM_HEAD = "nvjet_tst_128x8_64x16_4x1_v_bz_TNT";
    private static final String GEMM_PREFILL_WIDE = "nvjet_tst_256x128_64x4_2x1_v_bz_TNT";
    private static final String GEMM_PREFILL_TALL = "nvjet_tst_128x256_64x4_1x2_h_bz_coopB_TNT";
    private static final String DTOH_MEMCPY = "Memcpy DtoH (Device -> Pinned)";

    private final int ranks;
    private final int batch;
    /** Layers run per step, at most {@link #LAYERS}: the calibration spreads each category's target over them. */
    private final int layers;

    MoeModel(int ranks, int batch, int layers) {
        this.ranks = ranks;
        this.batch = batch;
        this.layers = layers;
    }

    /** Decode steps of {@code batch} single-token requests, replayed from a CUDA graph or launched eagerly. */
    StepTemplate decode(boolean cudaGraph) {
        Builder b = new Builder(DECODE_TARGET_MS);
        embedding(b, batch, false);
        for (int layer = 0; layer < layers; layer++) {
            decodeLayer(b, layer);
        }
        logits(b, false);
        b.fixed(memcpy(), "aten::to", DECODE_MEMCPY_NS);
        String name = "execute_context_0(0)_generation_" + batch + "(" + batch + ")";
        return new StepTemplate(Phase.DECODE, name, (long) batch * HIDDEN, cudaGraph, b.calibrated());
    }

    /** One 2048-token prefill request, always launched eagerly (larger than any captured graph). */
    StepTemplate prefill() {
        int t = PREFILL_TOKENS;
        Builder b = new Builder(PREFILL_TARGET_MS);
        embedding(b, t, true);
        for (int layer = 0; layer < layers; layer++) {
            prefillLayer(b, layer);
        }
        logits(b, true);
        b.fixed(memcpy(), "aten::to", PREFILL_MEMCPY_NS);
        String name = "execute_context_1(" + t + ")_generation_0(0)";
        return new StepTemplate(Phase.PREFILL, name, (long) t * HIDDEN, false, b.calibrated());
    }

    private void embedding(Builder b, int tokens, boolean prefill) {
        int scope = b.newScope();
        b.add(other(MASK_MUL, "elementwise", "aten::mul", LaunchShape.of(blocks(tokens, 512), 128, 16, 0)),
                "aten::embedding", scope, prefill ? 0.6 : 1.4);
        b.add(other(INDEX_SELECT, "elementwise", "aten::index_select", LaunchShape.of(blocks(tokens * HIDDEN, 512), 128, 32, 0)),
                "aten::embedding", scope, prefill ? 3.0 : 1.8);
        ncclAllReduce(b);
    }

    private void decodeLayer(Builder b, int layer) {
        int t = batch;
        inputNorm(b, layer, t, 2.1, 1.9);
        b.add(gemm(GEMM_QKV_A, "aten::mm", false), 16.5);
        b.add(other(RMS_NORM, "norm", "_C::rms_norm", norm(t)), 1.6);
        b.add(other(RMS_NORM, "norm", "_C::rms_norm", norm(t)), 1.5);
        b.add(gemm(GEMM_SMALL, "aten::mm", false), 3.2);
        b.add(other(ROTARY, "rotary", "_C::rotary_embedding", LaunchShape.of(t, 128, 32, 0)), 1.7);
        int attention = b.newScope();
        String attn = "vllm::unified_attention_with_output";
        b.add(other(CONCAT_AND_CACHE_MLA, "kv_write", "_C_cache_ops::concat_and_cache_mla", LaunchShape.of(t, 512, 30, 0)),
                attn, attention, 1.9);
        b.add(gemm(GEMM_BMM, "aten::bmm", false), attn, attention, 3.0);
        b.add(new KernelSpec(TRITON_MLA_STAGE1, Category.ATTENTION, "mla_decode", Collective.NONE, LaunchApi.CU_LAUNCH_KERNEL,
                null, false, new LaunchShape(t, 8, 16, 128, 1, 1, 168, 65536), 0), attn, attention, 0.86);
        b.add(new KernelSpec(TRITON_MLA_STAGE2, Category.ATTENTION, "mla_decode", Collective.NONE, LaunchApi.CU_LAUNCH_KERNEL,
                null, false, new LaunchShape(t, 16, 1, 128, 1, 1, 48, 0), 0), attn, attention, 0.14);
        b.add(gemm(GEMM_BMM, "aten::bmm", false), attn, attention, 3.0);
        b.add(gemm(GEMM_SPLITK, "aten::mm", false), 6.1);
        b.add(gemm(SPLITK_REDUCE, "aten::mm", true), 2.1);
        customAllReduce(b);
        b.add(other(FUSED_ADD_RMS_NORM, "norm", "_C::fused_add_rms_norm", norm(t)), 2.1);
        b.add(gemm(GEMM_GATE, "aten::mm", false), 4.0);
        moe(b, t, 6.0, 5.5, 4.7, 24.1, 1.5, 15.244);
        b.add(gemm(GEMM_SMALL, "aten::mm", false), 2.9);
        b.add(other(ACT_AND_MUL, "activation", "_C::silu_and_mul", LaunchShape.of(t, 1024, 24, 0)), 1.3);
        b.add(gemm(GEMM_QKV_A, "aten::mm", false), 2.0);
        b.add(other(ADD, "elementwise", "aten::add_", LaunchShape.of(blocks(t * HIDDEN, 512), 128, 16, 0)), 1.2);
        customAllReduce(b);
    }

    private void prefillLayer(Builder b, int layer) {
        int t = PREFILL_TOKENS;
        inputNorm(b, layer, t, 2.1, 1.9);
        b.add(gemm(GEMM_PREFILL_WIDE, "aten::mm", false), 16.0);
        b.add(other(RMS_NORM, "norm", "_C::rms_norm", norm(t)), 1.6);
        b.add(other(RMS_NORM, "norm", "_C::rms_norm", norm(t)), 1.5);
        b.add(gemm(GEMM_PREFILL_TALL, "aten::mm", false), 9.0);
        b.add(other(ROTARY, "rotary", "_C::rotary_embedding", LaunchShape.of(t, 128, 32, 0)), 1.7);
        int attention = b.newScope();
        String attn = "vllm::unified_attention_with_output";
        b.add(other(CONCAT_AND_CACHE_MLA, "kv_write", "_C_cache_ops::concat_and_cache_mla", LaunchShape.of(t, 512, 30, 0)),
                attn, attention, 1.9);
        b.add(gemm(GEMM_PREFILL_WIDE, "aten::mm", false), attn, attention, 12.0);
        b.add(new KernelSpec(FLASH_PREFILL, Category.ATTENTION, "prefill", Collective.NONE, LaunchApi.CUDA_LAUNCH_KERNEL,
                "_vllm_fa2_C::varlen_fwd", false, new LaunchShape(16, Math.max(1, 64 / ranks), 1, 128, 1, 1, 255, 73728), 0),
                attn, attention, 1.0);
        b.add(gemm(GEMM_PREFILL_WIDE, "aten::mm", false), 14.0);
        ncclAllReduce(b);
        b.add(other(FUSED_ADD_RMS_NORM, "norm", "_C::fused_add_rms_norm", norm(t)), 2.1);
        b.add(gemm(GEMM_PREFILL_TALL, "aten::mm", false), 3.0);
        moe(b, t, 1.0, 1.6, 1.4, 0.62, 1.5, 0.38);
        b.add(gemm(GEMM_PREFILL_WIDE, "aten::mm", false), 6.0);
        b.add(other(ACT_AND_MUL, "activation", "_C::silu_and_mul", LaunchShape.of(t, 1024, 24, 0)), 1.3);
        b.add(gemm(GEMM_PREFILL_TALL, "aten::mm", false), 3.5);
        b.add(other(ADD, "elementwise", "aten::add_", LaunchShape.of(blocks(t * HIDDEN, 512), 128, 16, 0)), 1.2);
        ncclAllReduce(b);
    }

    /** The first layer has no residual yet, so its input norm is the plain RMS norm. */
    private void inputNorm(Builder b, int layer, int tokens, double fusedWeight, double plainWeight) {
        if (layer == 0) {
            b.add(other(RMS_NORM, "norm", "_C::rms_norm", norm(tokens)), plainWeight);
        } else {
            b.add(other(FUSED_ADD_RMS_NORM, "norm", "_C::fused_add_rms_norm", norm(tokens)), fusedWeight);
        }
    }

    private void moe(Builder b, int tokens, double gating, double align, double sort, double w13, double act, double w2) {
        int moe = b.newScope();
        String scope = "vllm::moe_forward";
        b.add(routing(TOPK_GATING, "gating", "_moe_C::topk_softmax", false, LaunchShape.of(blocks(tokens, 4), 128, 64, 0)),
                scope, moe, gating);
        b.add(routing(MOE_ALIGN, "align_sort", "_moe_C::moe_align_block_size", false, LaunchShape.of(1, 1024, 32, 1540)),
                scope, moe, align);
        b.add(routing(COUNT_AND_SORT, "align_sort", "_moe_C::moe_align_block_size", true,
                LaunchShape.of(blocks(tokens * 8, 256), 256, 24, 0)), scope, moe, sort);
        b.add(marlin(MARLIN_W13), scope, moe, w13);
        b.add(other(ACT_AND_MUL, "activation", "_C::silu_and_mul", LaunchShape.of(tokens * 8, 1024, 24, 0)), scope, moe, act);
        b.add(marlin(MARLIN_W2), scope, moe, w2);
    }

    /** Final norm, vocab-parallel lm_head, the logits all-reduces and greedy sampling. */
    private void logits(Builder b, boolean prefill) {
        b.add(other(FUSED_ADD_RMS_NORM, "norm", "_C::fused_add_rms_norm", norm(prefill ? PREFILL_TOKENS : batch)), 2.1);
        b.add(gemm(GEMM_LM_HEAD, "aten::mm", false), prefill ? 7.0 : 160.0);
        for (int i = 0; i < EXTRA_NCCL_ALLREDUCES - 1; i++) {
            ncclAllReduce(b);
        }
        int copy = b.newScope();
        b.add(other(TO_FLOAT, "elementwise", "aten::copy_", LaunchShape.of(40, 128, 32, 0)), "aten::to", copy,
                prefill ? 0.3 : 2.4);
        b.add(new KernelSpec(ARGMAX, Category.OTHER, "sampling", Collective.NONE, LaunchApi.CUDA_LAUNCH_KERNEL,
                "aten::argmax", false, new LaunchShape(1, 1, 1, 32, 16, 1, 40, 2048), 0), prefill ? 0.5 : 4.0);
    }

    private void customAllReduce(Builder b) {
        String name = "void vllm::cross_device_reduce_1stage<__nv_bfloat16, " + ranks + ">(vllm::RankData*,"
                + " vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)";
        b.add(new KernelSpec(name, Category.ALLREDUCE, "custom", Collective.CUSTOM_ALLREDUCE, LaunchApi.CUDA_LAUNCH_KERNEL,
                "_C_custom_ar::all_reduce", false, LaunchShape.of(2, 512, 40, 0), 0), "vllm::all_reduce", b.newScope(), 1.0);
    }

    private void ncclAllReduce(Builder b) {
        b.add(new KernelSpec(NCCL_ALLREDUCE, Category.ALLREDUCE, "nccl", Collective.NCCL_ALLREDUCE,
                LaunchApi.CU_LAUNCH_KERNEL_EX, "record_param_comms", false, LaunchShape.of(2, 512, 96, 67648), 0),
                "vllm::all_reduce", b.newScope(), 0.4);
    }

    private KernelSpec memcpy() {
        return new KernelSpec(DTOH_MEMCPY, Category.MEMCPY, "dtoh", Collective.NONE, LaunchApi.CUDA_MEMCPY_ASYNC,
                "aten::copy_", false, null, 8L * batch);
    }

    private static KernelSpec gemm(String name, String op, boolean sharesOp) {
        LaunchShape shape = name.startsWith("nvjet")
                ? LaunchShape.of(SMS - 8, 256, 168, 99328) : LaunchShape.of(28, 128, 32, 0);
        return new KernelSpec(name, Category.GEMM, "cublas", Collective.NONE, LaunchApi.CUDA_LAUNCH_KERNEL, op, sharesOp, shape, 0);
    }

    private static KernelSpec marlin(String name) {
        return new KernelSpec(name, Category.MOE_GEMM, "marlin", Collective.NONE, LaunchApi.CUDA_LAUNCH_KERNEL,
                "_moe_C::moe_wna16_marlin_gemm", false, LaunchShape.of(SMS, 256, 168, 95744), 0);
    }

    private static KernelSpec routing(String name, String sub, String op, boolean sharesOp, LaunchShape shape) {
        return new KernelSpec(name, Category.ROUTING, sub, Collective.NONE, LaunchApi.CUDA_LAUNCH_KERNEL, op, sharesOp, shape, 0);
    }

    private static KernelSpec other(String name, String sub, String op, LaunchShape shape) {
        return new KernelSpec(name, Category.OTHER, sub, Collective.NONE, LaunchApi.CUDA_LAUNCH_KERNEL, op, false, shape, 0);
    }

    private static LaunchShape norm(int tokens) {
        return LaunchShape.of(tokens, 256, 32, 168);
    }

    private static int blocks(long elements, int perBlock) {
        return (int) Math.max(1, (elements + perBlock - 1) / perBlock);
    }

    private static Map<Category, Double> targets(double allreduce, double attention, double moeGemm, double gemm,
                                                 double routing, double other) {
        Map<Category, Double> m = new EnumMap<>(Category.class);
        m.put(Category.ALLREDUCE, allreduce);
        m.put(Category.ATTENTION, attention);
        m.put(Category.MOE_GEMM, moeGemm);
        m.put(Category.GEMM, gemm);
        m.put(Category.ROUTING, routing);
        m.put(Category.OTHER, other);
        return m;
    }

    /** Collects a step's entries with relative weights, then turns weights into nanoseconds per category target. */
    private static final class Builder {
        private final Map<Category, Double> targetMs;
        private final List<KernelSpec> specs = new ArrayList<>();
        private final List<Double> weights = new ArrayList<>();
        private final List<String> scopes = new ArrayList<>();
        private final List<Integer> scopeIds = new ArrayList<>();
        private final List<Boolean> fixed = new ArrayList<>();
        private int lastScope;

        Builder(Map<Category, Double> targetMs) {
            this.targetMs = targetMs;
        }

        int newScope() {
            return ++lastScope;
        }

        void add(KernelSpec spec, double weight) {
            add(spec, null, 0, weight);
        }

        void add(KernelSpec spec, String scope, int scopeId, double weight) {
            specs.add(spec);
            weights.add(weight);
            scopes.add(scope);
            scopeIds.add(scopeId);
            fixed.add(false);
        }

        /** An entry with a fixed duration, outside the calibrated categories (the small sampled-ids memcpy). */
        void fixed(KernelSpec spec, String scope, long ns) {
            specs.add(spec);
            weights.add((double) ns);
            scopes.add(scope);
            scopeIds.add(newScope());
            fixed.add(true);
        }

        List<TemplateEntry> calibrated() {
            Map<Category, Double> sums = new EnumMap<>(Category.class);
            for (int i = 0; i < specs.size(); i++) {
                if (!fixed.get(i)) {
                    sums.merge(specs.get(i).category(), weights.get(i), Double::sum);
                }
            }
            List<TemplateEntry> entries = new ArrayList<>(specs.size());
            for (int i = 0; i < specs.size(); i++) {
                KernelSpec spec = specs.get(i);
                long ns;
                if (fixed.get(i)) {
                    ns = Math.round(weights.get(i));
                } else {
                    Double target = targetMs.get(spec.category());
                    if (target == null) {
                        throw new IllegalStateException("no target for " + spec.category());
                    }
                    ns = Math.round(target * 1e6 * weights.get(i) / sums.get(spec.category()));
                }
                entries.add(new TemplateEntry(spec, ns, scopes.get(i), scopeIds.get(i)));
            }
            return entries;
        }
    }
}
