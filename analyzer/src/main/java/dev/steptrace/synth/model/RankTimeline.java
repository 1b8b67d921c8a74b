package dev.steptrace.synth.model;

import java.util.List;

/**
 * The capture's timeline, simulated for all ranks together and recorded for one. Ranks are coupled
 * by their collectives: every rank finishes an all-reduce instance at the same moment, so a rank
 * that arrives early spins inside the kernel. The timeline therefore steps every rank through every
 * GPU activity (arrival = previous end + a 1-3 µs gap, or the eager launch, whichever is later), and
 * gives a collective instance on rank r the duration {@code wait_r + transfer}, where
 * {@code wait_r = last arrival - arrival_r} (0 on the last rank to arrive) and the transfer is common
 * to all ranks. The transfer is chosen so that the mean duration over ranks equals the jittered
 * target, which keeps the presets' per-step means independent of how much the ranks happen to skew.
 *
 * <p>Only the observed rank's events are recorded; the other ranks cost a few arithmetic operations
 * per activity. Each writer thread owns its own timeline, and {@link Noise} makes them agree.
 */
public final class RankTimeline {
    /** CUPTI's id of the decode graph (one captured graph per batch size; this one was captured seventh). */
    private static final long GRAPH_ID = 7;
    private static final long GRAPH_NODE_BASE = 4_096;
    private static final double KERNEL_JITTER = 0.04;
    private static final double TRANSFER_JITTER = 0.03;
    private static final long MIN_KERNEL_NS = 640;
    /** Host time from profiler start to the first step's annotation. */
    private static final long FIRST_STEP_DELAY_NS = 183_000;
    /** Noise "entry" coordinates of the per-step host work outside the template entries. */
    private static final int STEP_START = -1;
    private static final int STEP_END = -2;

    private final Workload workload;
    private final WorkloadConfig config;
    private final Noise noise;
    private final int rank;
    private final int n;
    private final long clock;

    /** Per rank, on the reference clock. */
    private final long[] ready;
    private final long[] cursor;
    private final long[] prevEnd;
    /** With {@code --comm-stream}: when each rank's collective stream is free again. */
    private final long[] commEnd;
    private final long[] arrival;
    private final long[] gpuReady;
    private final long[] firstStart;

    /** The last collective instance's latest rank and the ranks' waits for it, summed ({@link #collective}). */
    private int lastRank;
    private long waits;

    private final RankStep out = new RankStep();
    private int step;
    private long lastHostEnd;

    // Ids of the observed rank, increasing over the whole capture like CUPTI's and torch's counters.
    private long correlation = 1;
    private long external = 1;
    private long evIdx;
    private long seq;

    // Open host ops of the observed rank while a step is built.
    private int scopeIdx;
    private long scopeExt;
    private int leafIdx;
    private long leafExt;
    private int ncclIdx;
    private long ncclExt;
    // What the observed rank's last eager launch said, for the GPU op it launched.
    private long launchCorrelation;
    private long launchExt;

    RankTimeline(Workload workload, int rank) {
        this.workload = workload;
        this.config = workload.config();
        this.noise = workload.noise();
        this.rank = rank;
        this.n = config.ranks();
        this.clock = workload.clockOffset(rank);
        this.ready = new long[n];
        this.cursor = new long[n];
        this.prevEnd = new long[n];
        this.commEnd = new long[n];
        this.arrival = new long[n];
        this.gpuReady = new long[n];
        this.firstStart = new long[n];
        for (int r = 0; r < n; r++) {
            long bits = noise.bits(Noise.HOST, -1, STEP_START, r);
            ready[r] = Workload.PROFILER_START_NS + FIRST_STEP_DELAY_NS + Noise.low16(bits, 0, 4_000);
        }
    }

    /** When this rank's profiler started, on its clock. */
    public long profilerStart() {
        return Workload.PROFILER_START_NS + clock;
    }

    /** End of the last step annotation so far, on this rank's clock. */
    public long lastHostEnd() {
        return lastHostEnd;
    }

    /**
     * Simulates the next step of the phase and returns the observed rank's view of it. The returned
     * object is reused by the next call.
     */
    public RankStep next(Phase phase) {
        StepTemplate t = workload.template(phase);
        int s = step++;
        out.reset(t);
        List<TemplateEntry> entries = t.entries();
        boolean graph = t.cudaGraph();

        long annExt = external++;
        int annIdx = out.addHost(RankStep.HostKind.USER_ANNOTATION, t.annotation(), local(ready[rank]), annExt, evIdx++);
        for (int r = 0; r < n; r++) {
            cursor[r] = ready[r];
            commEnd[r] = Long.MIN_VALUE;
            prepare(s, r);
        }
        long graphCorrelation = 0;
        if (graph) {
            graphCorrelation = correlation++;
            out.graphId(GRAPH_ID);
            for (int r = 0; r < n; r++) {
                long bits = noise.bits(Noise.HOST, s, STEP_START, r);
                long start = cursor[r];
                long dur = Noise.slot(bits, 5, 16_000, 28_000);
                gpuReady[r] = start + Noise.slot(bits, 6, 8_000, 14_000);
                cursor[r] = start + dur + Noise.slot(bits, 7, 2_000, 5_000);
                if (r == rank) {
                    out.addCall(LaunchApi.CUDA_GRAPH_LAUNCH, local(start), dur, graphCorrelation, 0);
                }
            }
        }

        long[] dur = new long[n];
        for (int k = 0; k < entries.size(); k++) {
            TemplateEntry e = entries.get(k);
            KernelSpec spec = e.spec();
            boolean eager = !graph || spec.isMemcpy();
            double nominal = e.baseNs() * config.scale(spec.category());
            // With --comm-stream a collective waits for the compute before it and for its stream; the
            // compute after it does not wait for it; the step's last operation waits for both streams.
            boolean side = workload.stream(spec) == Workload.COMM_STREAM;
            boolean join = config.commStream() && k == entries.size() - 1;
            for (int r = 0; r < n; r++) {
                long earliest = eager ? launch(s, k, r, entries, graph) : gpuReady[r];
                long bits = noise.bits(Noise.KERNEL, s, k, r);
                long after = join ? Math.max(prevEnd[r], commEnd[r]) : prevEnd[r];
                arrival[r] = k == 0 ? earliest : Math.max(after + Noise.low16(bits, 1_000, 3_000), earliest);
                if (side) {
                    arrival[r] = Math.max(arrival[r], commEnd[r]);
                }
                if (k == 0) {
                    firstStart[r] = arrival[r];
                }
                if (!spec.collective().isCollective()) {
                    double jitter = 1 + KERNEL_JITTER * Noise.centered(bits);
                    dur[r] = Math.max(MIN_KERNEL_NS, Math.round(nominal * jitter * workload.speed(r)));
                }
            }
            long wait = 0;
            if (spec.collective().isCollective()) {
                wait = collective(s, k, nominal, dur);
            }
            for (int r = 0; r < n; r++) {
                if (side) {
                    commEnd[r] = arrival[r] + dur[r];
                } else {
                    prevEnd[r] = arrival[r] + dur[r];
                }
            }
            RankStep.GpuOp g = out.addGpu(e, k);
            g.start = local(arrival[rank]);
            g.dur = dur[rank];
            g.waitNs = wait;
            g.lastRank = spec.collective().isCollective() ? lastRank : -1;
            g.waitsNs = spec.collective().isCollective() ? waits : 0;
            if (eager) {
                g.correlation = launchCorrelation;
                g.externalId = launchExt;
                if (spec.collective() == Collective.NCCL_ALLREDUCE) {
                    RankStep.HostOp comms = out.host(leafIdx);
                    g.seq = comms.seq;
                    g.commsId = comms.commsId;
                    out.addAnnotation("nccl:all_reduce", g.start - 1, g.dur + 2, ncclExt);
                }
            } else {
                g.correlation = graphCorrelation;
                g.graphNodeId = GRAPH_NODE_BASE + k;
            }
        }

        long gap = Noise.between(noise.bits(Noise.STEP, s, 0, 0), 220_000, 420_000);
        for (int r = 0; r < n; r++) {
            long bits = noise.bits(Noise.HOST, s, STEP_END, r);
            long gpuEnd = Math.max(prevEnd[r], commEnd[r]);
            long syncStart = cursor[r];
            long syncEnd = Math.max(syncStart + Noise.slot(bits, 0, 2_000, 4_000), gpuEnd + Noise.slot(bits, 1, 3_000, 6_000));
            long annEnd = syncEnd + Noise.slot(bits, 2, 8_000, 16_000);
            if (r == rank) {
                out.addCall(LaunchApi.CUDA_STREAM_SYNCHRONIZE, local(syncStart), syncEnd - syncStart, correlation++, 0);
                close(annIdx, annEnd);
                out.addAnnotation(t.annotation(), local(firstStart[r]) - 1, gpuEnd - firstStart[r] + 2, annExt);
                lastHostEnd = local(annEnd);
            }
            ready[r] = annEnd + gap + Noise.slot(bits, 3, 0, 4_000);
        }
        return out;
    }

    /**
     * Times one collective instance on every rank: all ranks end together, {@code transfer} after the
     * last arrival. Returns the observed rank's wait; sets {@link #lastRank} (the lowest of the ranks
     * that arrived last) and {@link #waits} (every rank's wait, summed: the time spent waiting for it).
     */
    private long collective(int s, int k, double nominal, long[] dur) {
        long last = Long.MIN_VALUE;
        for (int r = 0; r < n; r++) {
            if (arrival[r] > last) {
                last = arrival[r];
                lastRank = r;
            }
        }
        waits = 0;
        for (int r = 0; r < n; r++) {
            waits += last - arrival[r];
        }
        long target = Math.round(nominal * (1 + TRANSFER_JITTER * Noise.centered(noise.bits(Noise.COLLECTIVE, s, k, 0))));
        long transfer = config.fixedTransfers() ? target
                : Math.max(target - Math.round((double) waits / n), Math.max(1, target / 4));
        for (int r = 0; r < n; r++) {
            dur[r] = last - arrival[r] + transfer;
        }
        return last - arrival[rank];
    }

    /** Host work before the kernels: input preparation ops that launch nothing. */
    private void prepare(int s, int r) {
        long bits = noise.bits(Noise.HOST, s, STEP_START, r);
        long c = cursor[r] + Noise.slot(bits, 0, 4_000, 7_000);
        long empty = Noise.slot(bits, 1, 2_000, 4_000);
        hostRange(r, "aten::empty", c, empty);
        c += empty + Noise.slot(bits, 2, 1_000, 3_000);
        long slice = Noise.slot(bits, 3, 4_000, 7_000);
        hostRange(r, "aten::slice", c, slice);
        hostRange(r, "aten::as_strided", c + 1_200, Noise.slot(bits, 4, 800, 1_500));
        cursor[r] = c + slice + Noise.slot(bits, 2, 1_000, 3_000);
    }

    private void hostRange(int r, String name, long start, long dur) {
        if (r == rank) {
            int i = out.addHost(RankStep.HostKind.CPU_OP, name, local(start), external++, evIdx++);
            out.host(i).dur = dur;
        }
    }

    /**
     * The host side of an eager launch on rank r: opens the scope and leaf ops as needed, makes the
     * launch call, closes what ends here. Returns the earliest time the GPU can start the work. Host
     * durations scale with {@code --host-overhead}; the launch's latency to the GPU does not.
     */
    private long launch(int s, int k, int r, List<TemplateEntry> entries, boolean graph) {
        TemplateEntry e = entries.get(k);
        KernelSpec spec = e.spec();
        boolean observed = r == rank;
        boolean comms = spec.collective() == Collective.NCCL_ALLREDUCE;
        long bits = noise.bits(Noise.HOST, s, k, r);
        long c = cursor[r];

        int previousScope = k > 0 && eager(entries.get(k - 1), graph) ? entries.get(k - 1).scopeId() : 0;
        if (e.scopeId() != 0 && e.scopeId() != previousScope) {
            if (observed) {
                scopeExt = external++;
                scopeIdx = out.addHost(RankStep.HostKind.CPU_OP, e.scope(), local(c), scopeExt, evIdx++);
            }
            c += host(Noise.slot(bits, 0, 1_000, 2_000));
        }
        if (spec.sharesOp()) {
            c += host(Noise.slot(bits, 1, 500, 1_500));
        } else if (spec.op() != null) {
            if (observed) {
                leafExt = external++;
                leafIdx = out.addHost(comms ? RankStep.HostKind.RECORD_PARAM_COMMS : RankStep.HostKind.CPU_OP,
                        spec.op(), local(c), leafExt, evIdx++);
                if (comms) {
                    RankStep.HostOp h = out.host(leafIdx);
                    h.seq = seq++;
                    h.commsId = noise.bits(Noise.COMMS_ID, h.seq, 0, 0);
                }
            }
            c += host(comms ? Noise.slot(bits, 1, 6_000, 10_000) : Noise.slot(bits, 1, 2_000, 5_000));
            if (comms) {
                if (observed) {
                    ncclExt = external++;
                    ncclIdx = out.addHost(RankStep.HostKind.USER_ANNOTATION, "nccl:all_reduce", local(c), ncclExt, evIdx++);
                }
                c += host(Noise.slot(bits, 2, 2_000, 3_000));
            }
        }

        long launchStart = c;
        long launchDur = host(launchDuration(spec.launch(), bits));
        c += launchDur;
        if (observed) {
            launchExt = spec.op() != null || spec.sharesOp() ? leafExt : scopeExt;
            launchCorrelation = correlation++;
            out.addCall(spec.launch(), local(launchStart), launchDur, launchCorrelation, launchExt);
        }

        boolean nextShares = k + 1 < entries.size() && entries.get(k + 1).spec().sharesOp();
        if (!nextShares && (spec.op() != null || spec.sharesOp())) {
            if (comms) {
                c += host(Noise.slot(bits, 3, 1_000, 2_000));
                if (observed) {
                    close(ncclIdx, c);
                }
            }
            c += host(Noise.slot(bits, 3, 1_000, 2_500));
            if (observed) {
                close(leafIdx, c);
            }
        }
        boolean scopeEnds = k + 1 == entries.size() || entries.get(k + 1).scopeId() != e.scopeId()
                || !eager(entries.get(k + 1), graph);
        if (e.scopeId() != 0 && scopeEnds) {
            c += host(Noise.slot(bits, 4, 1_000, 2_000));
            if (observed) {
                close(scopeIdx, c);
            }
        }
        cursor[r] = c + host(Noise.slot(bits, 5, 3_500, 6_500));
        return launchStart + Noise.slot(bits, 6, 3_000, 5_000);
    }

    /** A host duration of eager launching, scaled by {@code --host-overhead}. */
    private long host(long ns) {
        return config.hostOverhead() == 1 ? ns : Math.round(ns * config.hostOverhead());
    }

    private static long launchDuration(LaunchApi api, long bits) {
        switch (api) {
            case CU_LAUNCH_KERNEL:
                return Noise.slot(bits, 7, 4_000, 7_000);
            case CU_LAUNCH_KERNEL_EX:
                return Noise.slot(bits, 7, 5_000, 9_000);
            case CUDA_MEMCPY_ASYNC:
                return Noise.slot(bits, 7, 8_000, 14_000);
            default:
                return Noise.slot(bits, 7, 3_500, 6_500);
        }
    }

    private static boolean eager(TemplateEntry e, boolean graph) {
        return !graph || e.spec().isMemcpy();
    }

    /** Ends an observed host op at reference time {@code end}. */
    private void close(int idx, long end) {
        RankStep.HostOp h = out.host(idx);
        h.dur = local(end) - h.start;
    }

    private long local(long reference) {
        return reference + clock;
    }
}
