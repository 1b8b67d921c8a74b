package dev.steptrace.common;

import java.util.Optional;

/**
 * A part of a step's wall time (docs/reports.md, "Step time"): what the GPU ran, by kernel category, its exposed
 * communication, or why it was idle. The parts of a step sum to its time. Ids are the store's
 * {@code step_time_parts.part} and report.json's {@code step_time.parts[].name}: a kernel category keeps its
 * id, exposed communication starts with {@code comm}, idle time with {@code idle}. Labels fit a chart legend
 * (at most 28 characters).
 */
public enum StepPart implements Labelled {
    ATTENTION("Attention", Kind.WORK),
    MOE_GEMM("MoE GEMMs", Kind.WORK),
    GEMM("Other GEMMs", Kind.WORK),
    ROUTING("MoE routing", Kind.WORK),
    MEMCPY("Memcpy / memset", Kind.WORK),
    OTHER("Other kernels", Kind.WORK),
    /** The first part of each collective instance: waiting for the slowest rank to arrive. */
    COMM_WAIT("Waiting for other ranks", Kind.COMM),
    COMM_ALLREDUCE("AllReduce, exposed", Kind.COMM),
    COMM_OTHER("Other collectives, exposed", Kind.COMM),
    /** The next kernel's launch call began only once the GPU had nothing left to run. */
    IDLE_LAUNCH("Idle: waiting for launches", Kind.IDLE),
    /** A host-sync call ran when the GPU went idle: the CPU waited for the GPU to drain. */
    IDLE_SYNC("Idle: blocked on host syncs", Kind.IDLE),
    IDLE_BEFORE("Idle before the first kernel", Kind.IDLE),
    IDLE_AFTER("Idle after the last kernel", Kind.IDLE),
    IDLE_OTHER("Idle: other", Kind.IDLE);

    /** What a part is made of. */
    public enum Kind { WORK, COMM, IDLE }

    private final String label;
    private final Kind kind;

    StepPart(String label, Kind kind) {
        this.label = label;
        this.kind = kind;
    }

    @Override
    public String label() {
        return label;
    }

    public Kind kind() {
        return kind;
    }

    /** The part with this id, if any. */
    public static Optional<StepPart> of(String id) {
        return Identified.byId(StepPart.class, id);
    }

    /** The label of a part id; an id that is no part prints as it is. */
    public static String labelOf(String id) {
        return Labelled.labelOf(StepPart.class, id);
    }
}
