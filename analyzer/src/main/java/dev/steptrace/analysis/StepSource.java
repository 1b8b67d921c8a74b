package dev.steptrace.analysis;

/**
 * Where a capture's steps come from, in priority order (the first that exists in the capture
 * wins, unless {@code --step-regex} names annotations). Ids are report.json's {@code step_source}.
 */
public enum StepSource {
    /** vLLM's per-step {@code execute_context_N(T)_generation_M(T)} record_function. */
    VLLM_ANNOTATION("vllm_annotation"),
    /** SGLang's {@code step[DECODE bs=..]} / {@code step[EXTEND ..]} annotations. */
    SGLANG_ANNOTATION("sglang_annotation"),
    /** torch.profiler's {@code ProfilerStep#N}, present when a schedule is set. */
    PROFILER_STEP("profiler_step"),
    /** Annotations matching the user's {@code --step-regex}. */
    USER_REGEX("user_regex"),
    /** NVTX ranges (Nsight Systems captures). */
    NVTX("nvtx"),
    /** Each {@code cudaGraphLaunch}, up to the next one. */
    GRAPH_LAUNCH("graph_launch"),
    /** Bursts of GPU work separated by idle gaps. */
    GAP("gap");

    /**
     * The CPU events step annotations are among, as a condition on {@code cpu_ops o} joined with its
     * {@code names n}: user annotations, and torch's {@code ProfilerStep#N} ops.
     */
    public static final String ANNOTATIONS =
            "(o.kind = 'user_annotation' OR (o.kind = 'cpu_op' AND n.name LIKE 'ProfilerStep#%'))";

    private final String id;

    StepSource(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** The source with this id ({@code steps.source}, report.json's {@code step_source}). */
    public static StepSource of(String id) {
        for (StepSource s : values()) {
            if (s.id.equals(id)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no step source " + id);
    }
}
