package dev.steptrace.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Short names of real kernel names (the H200 samples and docs/taxonomy.md's), worked out by hand. */
class ShortNameTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>) | ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>) | ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
        "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int) | vllm::cross_device_reduce_1stage",
        "std::enable_if<T2>(int)0&&vllm::_typeConvert<T1>::exists, void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, float, int, int) | vllm::fused_add_rms_norm_kernel",
        "void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, unsigned int, 2, 2, -2>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, int) | at::native::(anonymous namespace)::indexSelectSmallIndex",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>) | at::native::vectorized_elementwise_kernel",
        "void act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16*, c10::BFloat16 const*, int) | act_and_mul_kernel",
        "nvjet_sm90_tst_128x16_64x11_4x1_v_bz_splitK_TNT | nvjet_sm90_tst_128x16_64x11_4x1_v_bz_splitK_TNT",
        "triton_red_fused_moe_forward_shared_rms_norm_0 | triton_red_fused_moe_forward_shared_rms_norm_0",
        "fused_moe_kernel_gptq_awq | fused_moe_kernel_gptq_awq",
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8::Params) | cutlass::Kernel2",
        "void f<a->b>(int) const | f",
        "(anonymous namespace)::g() | (anonymous namespace)::g",
    })
    void keepsTheQualifiedFunctionName(String name, String expected) {
        assertEquals(expected, ShortName.of(name));
    }
}
