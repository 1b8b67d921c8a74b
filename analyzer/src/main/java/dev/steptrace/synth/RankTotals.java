package dev.steptrace.synth;

import dev.steptrace.synth.model.Category;
import dev.steptrace.synth.model.KernelSpec;
import dev.steptrace.synth.model.Phase;
import dev.steptrace.synth.model.RankStep;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * What one rank's file contains, summed from the very durations handed to the trace writer: per
 * phase, steps and per-kernel-spec nanoseconds and calls, plus the wait/transfer split of its
 * collectives. EXPECTED.json is computed from these sums only, never from the model's nominal values.
 */
public final class RankTotals {
    /** Sums for one phase. */
    public static final class PhaseTotals {
        int steps;
        /** Per spec: {nanoseconds, calls}. */
        final Map<KernelSpec, long[]> specs = new IdentityHashMap<>();
        final Map<Category, long[]> collectiveWaitTransferCalls = new EnumMap<>(Category.class);

        public int steps() {
            return steps;
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
        t.steps++;
        for (int i = 0; i < step.gpuCount(); i++) {
            RankStep.GpuOp g = step.gpu(i);
            KernelSpec spec = g.entry.spec();
            long[] sum = t.specs.computeIfAbsent(spec, s -> new long[2]);
            sum[0] += g.dur;
            sum[1]++;
            if (spec.collective().isCollective()) {
                long[] c = t.collectiveWaitTransferCalls.computeIfAbsent(spec.category(), k -> new long[3]);
                c[0] += g.waitNs;
                c[1] += g.dur - g.waitNs;
                c[2]++;
            }
        }
    }
}
