package dev.steptrace.common;

import java.util.Optional;

/**
 * A part of a step's critical path (docs/whatif.md, "Critical path"): the chain of CPU work, launches, kernels and
 * waits whose times add up to the step. Ids are the store's {@code critical_path.part} and report.json's
 * {@code step_time.critical_path[].name}: kernels keep their category's id, collectives their step-time part's
 * ({@link StepPart}); the rest is the CPU's side of the chain.
 */
public enum PathPart implements Labelled {
    ATTENTION("Attention"),
    MOE_GEMM("MoE GEMMs"),
    GEMM("Other GEMMs"),
    ROUTING("MoE routing"),
    MEMCPY("Memcpy / memset"),
    OTHER("Other kernels"),
    /** A collective waiting for a rank that arrived later (a rank's own path, not following that rank). */
    COMM_WAIT("Waiting for other ranks"),
    COMM_ALLREDUCE("AllReduce transfer"),
    COMM_OTHER("Other collectives' transfer"),
    /** CPU time between the calls that launch or wait for GPU work: Python, the framework, the scheduler. */
    CPU("CPU work"),
    /** A launch call, and the time from it to its kernel's start. */
    LAUNCH("Launches"),
    /** From the GPU finishing to the host-sync call returning. */
    SYNC("Host sync return"),
    /** Between two operations of the GPU that follow one another. */
    GAP("GPU gaps between kernels"),
    /** Before anything the trace shows of the step's chain. */
    UNTRACKED("Not traced");

    private final String label;

    PathPart(String label) {
        this.label = label;
    }

    @Override
    public String label() {
        return label;
    }

    /** The label of a part by its id; the id itself when no part has it. */
    public static String labelOf(String id) {
        return Labelled.labelOf(PathPart.class, id);
    }

    public static Optional<PathPart> of(String id) {
        return Identified.byId(PathPart.class, id);
    }

    /** The part of a kernel of {@code category} (a headline category id). */
    public static PathPart ofCategory(String category) {
        return switch (category) {
            case "allreduce" -> COMM_ALLREDUCE;
            case "comm_other" -> COMM_OTHER;
            default -> of(category).orElse(OTHER);
        };
    }

    /** Whether the part is the GPU's own work: a kernel, or a collective's transfer. */
    public boolean onGpu() {
        return ordinal() <= COMM_OTHER.ordinal() && this != COMM_WAIT;
    }

    public boolean collective() {
        return this == COMM_ALLREDUCE || this == COMM_OTHER;
    }
}
