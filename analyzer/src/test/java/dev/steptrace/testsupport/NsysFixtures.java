package dev.steptrace.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * Small Nsight Systems captures with hand-countable contents, built with {@link NsysCapture}. The
 * numbers tests assert are derived in the comments here.
 */
public final class NsysFixtures {
    /** Session start of rank 0 (epoch ns); rank r's session starts {@code r * 1234} ns later. */
    public static final long SESSION = 1_790_000_000_000_000_000L;
    public static final long T0 = SESSION + 50_000_000L;
    public static final long STEP_NS = 2_000_000L;
    public static final String GEMM = "ampere_sgemm_128x64_nn";
    public static final String ATTENTION = "_fwd_grouped_kernel_stage1";
    public static final String NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    public static final String PREFILL = "execute_context_1(128)_generation_0(0)";
    public static final String DECODE = "execute_context_0(0)_generation_1(1)";

    private NsysFixtures() {}

    public static long pid(int rank) {
        return 4100 + rank;
    }

    /**
     * Rank r of a 2-rank vLLM tensor-parallel capture: 1 prefill then 2 decode steps, each an NVTX
     * push/pop range named as vLLM names its steps, holding (on the main thread, tid = pid):
     * <ul>
     *   <li>{@code cudaLaunchKernel_v7000} → GEMM kernel (prefill 400 µs, decode 100 µs);</li>
     *   <li>{@code cuLaunchKernel} (driver) → Triton attention kernel (prefill 300 µs, decode 50 µs);</li>
     *   <li>an NVTX range {@code ncclAllReduce} in the {@code NCCL} domain (domainId 1; rank 0 names it
     *       inline, rank 1 through a registered string) around {@code cuLaunchKernelEx} (driver) → NCCL
     *       all-reduce kernel (prefill 80 µs on rank 0, 90 µs on rank 1; decode 30 and 20 µs);</li>
     *   <li>decode: {@code cudaMemcpyAsync_v3020} → 8-byte DtoH memcpy Device → Pinned (2 µs);
     *       prefill: {@code cudaMemsetAsync_v3020} → 1 KiB memset on the device (1 µs);</li>
     *   <li>{@code cudaStreamSynchronize_v3020} → a Stream Sync record.</li>
     * </ul>
     * Plus, to be dropped: a kernel and its launch that start before the session (negative times), an
     * NVTX mark in each step and a range never closed; and a start/end range {@code load_weights} on a
     * second thread.
     *
     * <p>Per rank: 9 kernels, 2 memcpy, 1 memset, 3 sync, 15 runtime/driver calls, 7 NVTX ranges
     * (3 steps, 3 NCCL, 1 start/end), 6 rows dropped (1 kernel, 1 call, 3 marks, 1 open range).
     * Correlation ids are 100 + 10 k + i.
     *
     * @param mpi write MPI_RANKS with the rank (else the rank is left to the file name)
     */
    public static NsysCapture tensorParallelRank(int rank, boolean mpi) {
        long session = SESSION + rank * 1234L;
        long pid = pid(rank);
        NsysCapture c = new NsysCapture(session, pid);
        c.mpiRank = mpi ? rank : null;
        c.hostName = "node-" + rank;
        int device = rank;
        long stream = 7;
        c.threadName(pid, "python3").threadName(pid + 1, "pt_main_worker");
        c.domain(session + 1_000, pid, 1, "NCCL", rank == 1);
        // Before the session (cudaProfilerStart came later): dropped.
        c.call(session - 9_000, 3_000, pid, 99, "cudaLaunchKernel_v7000", false);
        c.kernel(session - 5_000, 2_000, device, stream, 99, GEMM);
        c.startEnd(T0 - 5_000_000, 1_000_000, pid + 1, "load_weights");
        for (int k = 0; k < 3; k++) {
            boolean prefill = k == 0;
            long s = T0 + k * STEP_NS;
            long corr = 100 + 10L * k;
            c.pushPop(s, 1_500_000, pid, prefill ? PREFILL : DECODE);
            c.mark(s + 5, pid, "step marker");
            long gemm = prefill ? 400_000 : 100_000;
            long att = prefill ? 300_000 : 50_000;
            long nccl = prefill ? (rank == 0 ? 80_000 : 90_000) : (rank == 0 ? 30_000 : 20_000);
            c.call(s + 10_000, 4_000, pid, corr, "cudaLaunchKernel_v7000", false);
            long g0 = s + 30_000;
            c.kernel(g0, gemm, device, stream, corr, GEMM);
            c.call(s + 20_000, 5_000, pid, corr + 1, "cuLaunchKernel", true);
            long a0 = g0 + gemm + 1_000;
            c.kernel(a0, att, device, stream, corr + 1, ATTENTION);
            c.pushPop(s + 26_000, 10_000, pid, "ncclAllReduce", 1);
            c.call(s + 28_000, 6_000, pid, corr + 2, "cuLaunchKernelEx", true);
            long n0 = a0 + att + 1_000;
            c.kernel(n0, nccl, device, stream, corr + 2, NCCL);
            c.call(s + 40_000, 8_000, pid, corr + 3, prefill ? "cudaMemsetAsync_v3020" : "cudaMemcpyAsync_v3020", false);
            long m0 = n0 + nccl + 1_000;
            if (prefill) {
                c.memset(m0, 1_000, device, stream, corr + 3, 1024, NsysCapture.MEM_DEVICE);
            } else {
                c.memcpy(m0, 2_000, device, stream, corr + 3, 8, NsysCapture.COPY_DTOH, NsysCapture.MEM_DEVICE,
                        NsysCapture.MEM_PINNED);
            }
            c.call(s + 50_000, m0 + 5_000 - (s + 50_000), pid, corr + 4, "cudaStreamSynchronize_v3020", false);
            c.sync(m0 + 3_000, 1_000, device, stream, corr + 4, NsysCapture.SYNC_STREAM);
        }
        c.unterminated(T0 + 10 * STEP_NS, pid, "shutdown");
        return c;
    }

    /**
     * Two decode steps replayed from CUDA graph 7 on one rank. {@code nodeMode}: nsys
     * {@code --cuda-graph-trace=node}, three kernels per replay (GEMM 100 µs, attention 50 µs, NCCL
     * 30 µs) sharing the {@code cudaGraphLaunch_v10000} correlation id and carrying graphNodeId 11-13
     * and graphId 7. Else the default {@code graph} mode: one {@code CUPTI_ACTIVITY_KIND_GRAPH_TRACE}
     * row per replay (182 µs). Either way each step also copies the sampled token to the host
     * eagerly (2 µs memcpy).
     */
    public static NsysCapture graphReplays(boolean nodeMode) {
        NsysCapture c = new NsysCapture(SESSION, pid(0));
        long pid = pid(0);
        for (int k = 0; k < 2; k++) {
            long s = T0 + k * STEP_NS;
            long corr = 200 + 10L * k;
            c.pushPop(s, 1_000_000, pid, DECODE);
            c.call(s + 10_000, 20_000, pid, corr, "cudaGraphLaunch_v10000", false);
            long g0 = s + 20_000;
            if (nodeMode) {
                c.kernel(g0, 100_000, 0, 7, corr, GEMM, 11, 7);
                c.kernel(g0 + 101_000, 50_000, 0, 7, corr, ATTENTION, 12, 7);
                c.kernel(g0 + 152_000, 30_000, 0, 7, corr, NCCL, 13, 7);
            } else {
                c.graphReplay(g0, 182_000, 0, 7, corr, 7);
            }
            c.call(s + 40_000, 8_000, pid, corr + 1, "cudaMemcpyAsync_v3020", false);
            c.memcpy(g0 + 183_000, 2_000, 0, 7, corr + 1, 8, NsysCapture.COPY_DTOH, NsysCapture.MEM_DEVICE,
                    NsysCapture.MEM_PINNED);
        }
        return c;
    }

    /**
     * A lean export (no optional columns or tables, no NVTX): pid 4242, three bursts of two eager
     * kernels (GEMM 100 µs then attention 50 µs) 1 ms apart, launched by {@code cudaLaunchKernel_v7000}
     * with correlation 1..6. Without TARGET_INFO_CUDA_CONTEXT_INFO the reader cannot know that one
     * process did the work, so correlation ids become {@code pid << 32 | id}.
     */
    public static NsysCapture minimal() {
        NsysCapture c = new NsysCapture(SESSION, 4242);
        c.minimalSchema = true;
        for (int k = 0; k < 3; k++) {
            long s = T0 + k * 1_000_000L;
            c.call(s, 5_000, 4242, 2L * k + 1, "cudaLaunchKernel_v7000", false);
            c.call(s + 6_000, 5_000, 4242, 2L * k + 2, "cudaLaunchKernel_v7000", false);
            c.kernel(s + 20_000, 100_000, 0, 7, 2L * k + 1, GEMM);
            c.kernel(s + 121_000, 50_000, 0, 7, 2L * k + 2, ATTENTION);
        }
        return c;
    }

    public static void write(NsysCapture c, NsysExport.Container container, Path path) throws IOException {
        try {
            c.export().write(container, path);
        } catch (SQLException e) {
            throw new IOException(e);
        }
    }
}
