package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/** The normalized names a diff matches kernels by (docs/diff.md, "Matching kernels"). */
class KernelNamesTest {
    @Test
    void addressesAndGeneratedIdsDoNotSplitAKernel() {
        assertEquals(KernelNames.normalize("void k<(float*)0x7f3a2c001200>(Params)"),
                KernelNames.normalize("void k<(float*)0x7f00deadbeef>(Params)"));
        assertEquals("kernel_0x*_stage", KernelNames.normalize("kernel_0x1f_stage"));
        assertEquals(KernelNames.normalize("void (anonymous namespace)::_GLOBAL__N__4f1e2d3c_11_ops_cu::k<int>()"),
                KernelNames.normalize("void (anonymous namespace)::_GLOBAL__N__99aa01bc_11_ops_cu::k<int>()"));
        // TorchInductor numbers its kernels within a graph.
        assertEquals("triton_poi_fused_add_mul", KernelNames.normalize("triton_poi_fused_add_mul_3"));
        assertEquals("triton_red_fused__to_copy_mean_pow_rsqrt",
                KernelNames.normalize("triton_red_fused__to_copy_mean_pow_rsqrt_12"));
        assertEquals("triton_per_fused_softmax", KernelNames.normalize("triton_per_fused_softmax_0"));
        // Triton 2.x specialization suffixes (argument divisibility, constants).
        assertEquals("_fwd_kernel", KernelNames.normalize("_fwd_kernel_0d1d2d3de4de5de6c7de8"));
        assertEquals("void f<int>(int, float)", KernelNames.normalize("  void  f<int>(int,\tfloat) "));
    }

    @Test
    void realDifferencesStayApart() {
        assertNotEquals(KernelNames.normalize("void k<float>(float*)"), KernelNames.normalize("void k<__half>(__half*)"));
        assertNotEquals(KernelNames.normalize("nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_NNT"),
                KernelNames.normalize("nvjet_sm90_tst_256x8_64x6_4x1_v_bz_splitK_NNT"));
        assertNotEquals(KernelNames.normalize("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
                KernelNames.normalize("ncclDevKernel_AllReduce_Sum_bf16_RING_SIMPLE(ncclDevKernelArgsStorage<4096ul>)"));
        assertNotEquals(KernelNames.normalize("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 2>(...)"),
                KernelNames.normalize("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(...)"));
        // Tile shapes are not hex literals.
        assertNotEquals(KernelNames.normalize("sm90_xmma_gemm_bf16_160x128_ldg8"), KernelNames.normalize("sm90_xmma_gemm_bf16_160x64_ldg8"));
        // Names that only look like generated suffixes are left alone.
        assertEquals("vllm::cross_device_reduce_1stage", KernelNames.normalize("vllm::cross_device_reduce_1stage"));
        assertEquals("depthwise_conv_1d", KernelNames.normalize("depthwise_conv_1d"));
        assertEquals("fused_moe_kernel_gptq_awq", KernelNames.normalize("fused_moe_kernel_gptq_awq"));
        assertEquals("_fwd_grouped_kernel_stage1", KernelNames.normalize("_fwd_grouped_kernel_stage1"));
        assertEquals("cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x64x64_4x1x1_kernel0_0",
                KernelNames.normalize("cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x64x64_4x1x1_kernel0_0"));
    }
}
