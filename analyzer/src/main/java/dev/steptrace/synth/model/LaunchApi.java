package dev.steptrace.synth.model;

/**
 * The CUDA runtime and driver calls that put work on the GPU, with the CUPTI callback ids Kineto
 * writes as {@code cbid}. All of them are flow-start calls for Kineto, so each gets an {@code ac2g}
 * flow start.
 */
public enum LaunchApi {
    CUDA_LAUNCH_KERNEL("cudaLaunchKernel", 211, false),
    /** Triton kernels are launched through the driver API. */
    CU_LAUNCH_KERNEL("cuLaunchKernel", 307, true),
    /** NCCL 2.2x launches its kernels with {@code cuLaunchKernelEx}. */
    CU_LAUNCH_KERNEL_EX("cuLaunchKernelEx", 652, true),
    CUDA_GRAPH_LAUNCH("cudaGraphLaunch", 311, false),
    CUDA_MEMCPY_ASYNC("cudaMemcpyAsync", 41, false),
    CUDA_STREAM_SYNCHRONIZE("cudaStreamSynchronize", 131, false);

    private final String function;
    private final int cbid;
    private final boolean driver;

    LaunchApi(String function, int cbid, boolean driver) {
        this.function = function;
        this.cbid = cbid;
        this.driver = driver;
    }

    public String function() {
        return function;
    }

    public int cbid() {
        return cbid;
    }

    /** Driver calls are {@code cuda_driver} events in Kineto, runtime calls {@code cuda_runtime}. */
    public boolean driver() {
        return driver;
    }
}
