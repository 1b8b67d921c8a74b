package dev.steptrace.synth;

import dev.steptrace.classify.Category;
import dev.steptrace.synth.model.KernelSpec;
import dev.steptrace.synth.model.Phase;
import dev.steptrace.synth.model.RankStep;
import dev.steptrace.synth.model.StepTemplate;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one rank's file contains, summed from the very durations handed to the trace writer: per
 * phase, steps and per-kernel-spec nanoseconds and calls, plus the wait/transfer split of its
 * collectives. EXPECTED.json is computed from these sums only, never from the model's nominal values.
 */
public final class RankTotals {
    /** Sums for one phase. */
    public static final class PhaseTotals {
        int steps;
        private StepTemplate template;
        /** Per template entry. */
        private long[] ns;
        private long[] calls;
        final Map<Category, long[]> collectiveWaitTransferCalls = new EnumMap<>(Category.class);
        /** Per rank that arrived last at some collective instance: {instances, every rank's wait there, summed}. */
        final Map<Integer, long[]> lateArrivals = new TreeMap<>();
        /** Summed over steps: span, idle inside the span, idle waiting for a launch, communication, communication under other work. */
        long spanNs;
        long idleNs;
        long launchWaitNs;
        long commNs;
        long hiddenNs;
        /** Summed over the phase's steps but the rank's last: each step's window, its annotation's start to the next one's. */
        long windowNs;

        public int steps() {
            return steps;
        }

        /** Per kernel spec: {nanoseconds, calls}. */
        Map<KernelSpec, long[]> specs() {
            Map<KernelSpec, long[]> m = new IdentityHashMap<>();
            for (int k = 0; template != null && k < ns.length; k++) {
                long[] sum = m.computeIfAbsent(template.entries().get(k).spec(), s -> new long[2]);
                sum[0] += ns[k];
                sum[1] += calls[k];
            }
            return m;
        }
    }

    private final int rank;
    private final Map<Phase, PhaseTotals> phases = new EnumMap<>(Phase.class);
    /** The last step added: its phase, its annotation's start and the later of its annotation's and GPU work's ends. */
    private PhaseTotals lastPhase;
    private long lastStart;
    private long lastOwnEnd;

    public RankTotals(int rank) {
        this.rank = rank;
        for (Phase p : Phase.values()) {
            phases.put(p, new PhaseTotals());
        }
    }

    public int rank() {
        return rank;
    }

    public PhaseTotals phase(Phase phase) {
        return phases.get(phase);
    }

    /**
     * The phase's step time summed over its steps (docs/reports.md, "Step time"): each step's window from its
     * annotation's start to the next step's, the rank's last step to the later of its annotation's end and its
     * last GPU operation's end.
     */
    long windowNs(Phase phase) {
        PhaseTotals t = phases.get(phase);
        return t.windowNs + (lastPhase == t ? lastOwnEnd - lastStart : 0);
    }

    /** Adds one written step. */
    public void add(RankStep step) {
        PhaseTotals t = phases.get(step.phase());
        if (t.template == null) {
            t.template = step.template();
            t.ns = new long[t.template.entries().size()];
            t.calls = new long[t.ns.length];
        }
        t.steps++;
        RankStep.HostOp annotation = step.host(0);
        if (lastPhase != null) {
            lastPhase.windowNs += annotation.start - lastStart;
        }
        long gpuEnd = Long.MIN_VALUE;
        for (int i = 0; i < step.gpuCount(); i++) {
            gpuEnd = Math.max(gpuEnd, step.gpu(i).start + step.gpu(i).dur);
        }
        lastPhase = t;
        lastStart = annotation.start;
        lastOwnEnd = Math.max(annotation.start + annotation.dur, gpuEnd);
        sweep(step, t);
        for (int i = 0; i < step.gpuCount(); i++) {
            RankStep.GpuOp g = step.gpu(i);
            KernelSpec spec = g.entry.spec();
            t.ns[g.index] += g.dur;
            t.calls[g.index]++;
            if (spec.collective().isCollective()) {
                long[] c = t.collectiveWaitTransferCalls.computeIfAbsent(spec.category(), k -> new long[3]);
                c[0] += g.waitNs;
                c[1] += g.dur - g.waitNs;
                c[2]++;
                long[] late = t.lateArrivals.computeIfAbsent(g.lastRank, r -> new long[2]);
                late[0]++;
                late[1] += g.waitsNs;
            }
        }
    }

    /**
     * The step's GPU timeline swept in time order: span, the time no operation runs (idle), the part
     * of each idle gap after which the next operation's launch call began only once the GPU was idle
     * (waiting for the CPU), communication time (collectives, as a union) and the part of it during
     * which another operation ran too (hidden).
     */
    private static void sweep(RankStep step, PhaseTotals t) {
        int n = step.gpuCount();
        if (n == 0) {
            return;
        }
        Map<Long, Long> launchAt = new java.util.HashMap<>();
        for (int i = 0; i < step.callCount(); i++) {
            launchAt.putIfAbsent(step.call(i).correlation, step.call(i).start);
        }
        // Boundaries: +1 at a start, -1 at an end, ends before starts at the same time.
        long[][] events = new long[2 * n][];
        for (int i = 0; i < n; i++) {
            RankStep.GpuOp g = step.gpu(i);
            long comm = g.entry.spec().collective().isCollective() ? 1 : 0;
            events[2 * i] = new long[] {g.start, 1, comm, i};
            events[2 * i + 1] = new long[] {g.start + g.dur, -1, comm, i};
        }
        java.util.Arrays.sort(events, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long first = events[0][0];
        int comm = 0;
        int other = 0;
        long at = first;
        for (long[] e : events) {
            long dt = e[0] - at;
            if (comm > 0) {
                t.commNs += dt;
                if (other > 0) {
                    t.hiddenNs += dt;
                }
            }
            if (comm == 0 && other == 0 && dt > 0 && e[1] == 1) {
                t.idleNs += dt;
                Long launch = launchAt.get(step.gpu((int) e[3]).correlation);
                if (launch != null && launch >= at) {
                    t.launchWaitNs += dt;
                }
            }
            if (e[2] == 1) {
                comm += (int) e[1];
            } else {
                other += (int) e[1];
            }
            at = e[0];
        }
        t.spanNs += at - first;
    }
}
