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

    /** Adds one written step. */
    public void add(RankStep step) {
        PhaseTotals t = phases.get(step.phase());
        if (t.template == null) {
            t.template = step.template();
            t.ns = new long[t.template.entries().size()];
            t.calls = new long[t.ns.length];
        }
        t.steps++;
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
}
