package dev.steptrace.synth.model;

import java.util.List;

/**
 * A configured synthetic workload: the preset's step templates plus the per-rank traits that stay fixed
 * for the whole capture (a slightly faster or slower GPU, a clock offset of a few microseconds, plus the
 * offset of the rank's host when one is configured).
 * It knows nothing about file formats; a trace writer turns {@link RankTimeline} steps into bytes.
 */
public final class Workload {
    /**
     * Kineto's {@code baseTimeNanoseconds}: time rounded down to a 3-month bucket since the epoch
     * (7,889,238 s); this is bucket 227, 2026-10-01T12:17:06Z.
     */
    public static final long BASE_TIME_NS = 227L * 7_889_238L * 1_000_000_000L;
    /** When the profiler starts, relative to {@link #BASE_TIME_NS} (about two months into the quarter). */
    static final long PROFILER_START_NS = 5_150_157_429_165_821L;
    /** The GPU of the reference case, as CUDA names it, with its memory and SM count. */
    public static final String GPU_NAME = "NVIDIA RTX PRO 6000 Blackwell Server Edition";
    public static final long GPU_MEMORY_BYTES = 102_641_958_912L;
    public static final int GPU_SMS = 188;
    /** GPUs per node: {@code deviceProperties} lists them all, and a rank's device is its local index. */
    public static final int GPUS_PER_NODE = 8;
    /** The stream every kernel runs on, or every kernel but the collectives with {@code --comm-stream}. */
    public static final int COMPUTE_STREAM = 7;
    /** The collectives' own stream with {@code --comm-stream} (NCCL's internal stream in PyTorch captures). */
    public static final int COMM_STREAM = 13;
    /** Relative spread of compute speed between ranks (a GPU that clocks a little lower). */
    private static final double RANK_SPEED_SPREAD = 0.03;
    private static final long MAX_CLOCK_OFFSET_NS = 4_000;

    private final WorkloadConfig config;
    private final StepTemplate prefill;
    private final StepTemplate decode;
    private final Noise noise;
    private final double[] speed;
    private final long[] clockOffset;

    public Workload(WorkloadConfig config) {
        this.config = config;
        List<StepTemplate> templates = config.preset().templates(config.ranks(), config.batch(), config.layers());
        this.prefill = templates.get(0);
        this.decode = templates.get(1);
        this.noise = new Noise(config.seed());
        int n = config.ranks();
        this.speed = new double[n];
        this.clockOffset = new long[n];
        double sum = 0;
        for (int r = 0; r < n; r++) {
            speed[r] = Noise.centered(noise.bits(Noise.RANK, r, 0, 0));
            sum += speed[r];
        }
        for (int r = 0; r < n; r++) {
            // Normalized to mean 1 over ranks, so that rank differences do not move the means the presets promise.
            speed[r] = 1 + RANK_SPEED_SPREAD * (speed[r] - sum / n);
            clockOffset[r] = Noise.between(noise.bits(Noise.RANK, r, 1, 0), 0, MAX_CLOCK_OFFSET_NS)
                    + config.clockOffsets().getOrDefault(r, 0L);
        }
    }

    public WorkloadConfig config() {
        return config;
    }

    public StepTemplate template(Phase phase) {
        return phase == Phase.PREFILL ? prefill : decode;
    }

    /** A fresh timeline observed from one rank; each call starts at the beginning of the capture. */
    public RankTimeline timeline(int rank) {
        return new RankTimeline(this, rank);
    }

    /** The stream a kernel of this spec runs on. */
    public int stream(KernelSpec spec) {
        return config.commStream() && spec.collective().isCollective() ? COMM_STREAM : COMPUTE_STREAM;
    }

    /** The streams kernels run on, in ascending order. */
    public java.util.List<Integer> streams() {
        return config.commStream() ? java.util.List.of(COMPUTE_STREAM, COMM_STREAM) : java.util.List.of(COMPUTE_STREAM);
    }

    /** The rank's CUDA device on its node. */
    public int device(int rank) {
        return rank % GPUS_PER_NODE;
    }

    /** The rank's worker process id (vLLM runs one worker process per rank). */
    public long pid(int rank) {
        return 41_207 + 113L * rank;
    }

    Noise noise() {
        return noise;
    }

    /**
     * Duration multiplier of the rank's compute kernels: its GPU's small speed difference (mean 1 over
     * ranks) times its {@code --slow-rank} factor.
     */
    double speed(int rank) {
        return speed[rank] * config.slowdown(rank);
    }

    /** What the rank's clock reads when the reference clock reads 0 (EXPECTED.json's {@code clock_offset_ns}). */
    public long clockOffset(int rank) {
        return clockOffset[rank];
    }
}
