package dev.steptrace.analysis;

import dev.steptrace.common.PathPart;
import dev.steptrace.common.StepPart;
import dev.steptrace.report.BottleneckReport.HostSync;
import dev.steptrace.report.BottleneckReport.IdleCpuOp;
import dev.steptrace.report.BottleneckReport.PartShare;
import dev.steptrace.report.Fmt;
import java.util.List;

/**
 * The one-line finding of a phase's step time (docs/reports.md, "Step time"): its largest part, the cause the
 * trace shows for it, and the change that fits that cause (CUDA graphs for launch waits, not for host syncs);
 * first, when the CPU's side makes most of the critical path, that the CPU sets the step whatever the GPU's
 * largest part is.
 */
final class StepFinding {
    private StepFinding() {}

    /** The CPU's side of the critical path from this share of the step on sets the step. */
    private static final double CPU_BOUND_PCT = 50;

    /**
     * @param parts        the phase's parts, largest first (means over ranks)
     * @param criticalPath the parts of its critical path (means over ranks)
     * @param paceRank     the rank that sets the pace, or null
     * @param ranks        how many ranks the phase has
     */
    static String of(List<PartShare> parts, List<PartShare> criticalPath, Integer paceRank, int ranks,
                     double launchesPerStep, List<HostSync> syncs, List<IdleCpuOp> idleOps) {
        if (parts.isEmpty()) {
            return "The steps hold no time.";
        }
        PartShare top = parts.get(0);
        String share = Fmt.pct(top.sharePct()) + " of the step (" + Fmt.ms(top.msPerStep()) + " ms)";
        StepPart part = StepPart.of(top.name()).orElse(StepPart.OTHER);
        if (part != StepPart.IDLE_LAUNCH && part != StepPart.IDLE_SYNC) {
            String cpuBound = cpuBound(criticalPath, launchesPerStep);
            if (cpuBound != null) {
                return cpuBound;
            }
        }
        return switch (part) {
            case IDLE_LAUNCH -> "The GPU waits for the CPU to launch work " + share + ", with " + Fmt.count(launchesPerStep)
                    + " launches per step: the step is launch-bound. Capturing it as a CUDA graph (or fusing its small"
                    + " kernels) removes most of this wait.";
            case IDLE_SYNC -> "The GPU idles " + share + " while the CPU is blocked on host syncs" + syncCause(syncs)
                    + ": CUDA graphs do not remove this; take the sync out of the step (no .item(), .cpu() or .tolist()"
                    + " on GPU results inside it) or overlap it with the next step's work.";
            case IDLE_BEFORE -> "The GPU idles " + share + " before each step's first kernel: CPU work at the start of"
                    + " the step (scheduling, preparing inputs)" + cpuCause(idleOps) + ". Overlap it with the previous"
                    + " step's GPU work (asynchronous scheduling) or make it cheaper.";
            case IDLE_AFTER -> "The GPU idles " + share + " after each step's last kernel: CPU work at the end of the"
                    + " step (processing outputs, scheduling the next)" + cpuCause(idleOps) + ". Overlap it with the"
                    + " next step's GPU work (asynchronous scheduling) or make it cheaper.";
            case IDLE_OTHER -> "The GPU idles " + share + " with its next work already launched: it waits on"
                    + " other streams or events, not on the CPU.";
            case COMM_WAIT -> "Collectives wait " + share + " for the slowest rank"
                    + (paceRank == null || ranks < 2 ? "" : " (rank " + paceRank + " sets the pace)")
                    + ": balance the ranks' work; a faster interconnect does not shorten this wait.";
            case COMM_ALLREDUCE, COMM_OTHER -> (part == StepPart.COMM_ALLREDUCE ? "Exposed all-reduce transfer"
                    : "Exposed collective transfer") + " takes " + share + ": overlapping it with compute hides it;"
                    + " a faster interconnect shortens it.";
            default -> "The GPU is busy: " + part.label() + " takes " + share + "; idle time is "
                    + Fmt.pct(idlePct(parts)) + " of the step, so faster " + part.label() + " shorten it.";
        };
    }

    /** The finding when the CPU's work, launches and host syncs make most of the critical path; else null. */
    private static String cpuBound(List<PartShare> criticalPath, double launchesPerStep) {
        double[] pct = new double[3]; // CPU work, launches, host syncs
        double ms = 0;
        for (PartShare p : criticalPath) {
            PathPart part = PathPart.of(p.name()).orElse(PathPart.UNTRACKED);
            int i = part == PathPart.CPU ? 0 : part == PathPart.LAUNCH ? 1 : part == PathPart.SYNC ? 2 : -1;
            if (i >= 0) {
                pct[i] += p.sharePct();
                ms += p.msPerStep();
            }
        }
        double cpu = pct[0] + pct[1] + pct[2];
        if (cpu < CPU_BOUND_PCT) {
            return null;
        }
        String cause;
        if (pct[1] >= pct[0] && pct[1] >= pct[2]) {
            cause = "Most of it is launching, " + Fmt.count(launchesPerStep) + " launches per step: the step is"
                    + " launch-bound, and capturing it as a CUDA graph removes most of their cost (steptrace whatif"
                    + " --launch-overhead 0 projects it).";
        } else if (pct[2] >= pct[0]) {
            cause = "Most of it is host syncs: take them out of the step (no .item(), .cpu() or .tolist() on GPU"
                    + " results inside it).";
        } else {
            cause = "Most of it is CPU work between the calls (the framework, Python, scheduling): less of it per"
                    + " step, or a CUDA graph of the step, shortens it.";
        }
        return "The CPU sets the step: its work, launch calls and host syncs make " + Fmt.pct(cpu) + " of the"
                + " critical path (" + Fmt.ms(ms) + " ms per step), and the GPU's parts below run within that time,"
                + " so faster kernels do not shorten it. " + cause;
    }

    private static double idlePct(List<PartShare> parts) {
        return parts.stream().filter(p -> p.name().startsWith("idle")).mapToDouble(PartShare::sharePct).sum();
    }

    private static String syncCause(List<HostSync> syncs) {
        if (syncs.isEmpty()) {
            return "";
        }
        HostSync s = syncs.get(0);
        return " (" + Fmt.count(s.callsPerStep()) + " " + s.call() + " per step"
                + (s.op() == null ? "" : ", from " + s.op()) + ")";
    }

    private static String cpuCause(List<IdleCpuOp> ops) {
        return ops.stream().filter(o -> "cpu_op".equals(o.kind())).findFirst()
                .map(o -> "; meanwhile the CPU ran " + o.name() + " the most (" + Fmt.ms(o.idleMsPerStep()) + " ms)")
                .orElse("");
    }
}
