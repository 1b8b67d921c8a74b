package dev.steptrace.common;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a capture's steps come from, in priority order (the first that exists in the capture wins, unless
 * {@code --step-regex} names annotations; docs/architecture.md, "Report, step by step", 3). Ids are
 * report.json's {@code step_source}, labels what reports print. The annotation patterns and the graph
 * launch names are defined here once, for the analysis and for whatever else reads steps.
 */
public enum StepSource implements Labelled {
    /** vLLM's per-step {@code execute_context_N(T)_generation_M(T)} record_function. */
    VLLM_ANNOTATION("vLLM step annotations"),
    /** SGLang's {@code step[DECODE bs=..]} / {@code step[EXTEND ..]} annotations. */
    SGLANG_ANNOTATION("SGLang step annotations"),
    /** torch.profiler's {@code ProfilerStep#N}, present when a schedule is set. */
    PROFILER_STEP("ProfilerStep#N"),
    /** Annotations matching the user's {@code --step-regex}. */
    USER_REGEX("annotations matching --step-regex"),
    /** NVTX ranges (Nsight Systems captures). */
    NVTX("NVTX ranges"),
    /** Each {@code cudaGraphLaunch}, up to the next one. */
    GRAPH_LAUNCH("CUDA graph launches"),
    /** Bursts of GPU work separated by idle gaps. */
    GAP("GPU idle gaps");

    /**
     * vLLM's per-step annotation {@code execute_context_N(T)_generation_M(T)}, also in the detailed form
     * {@code execute_32_context_0(...)...}: groups 1 and 3 are the context and generation request counts, 2
     * and 4 their token counts.
     */
    public static final Pattern VLLM_STEP =
            Pattern.compile("^execute(?:_\\d+)?_context_(\\d+)\\((.*)\\)_generation_(\\d+)\\((.*)\\)$");
    /** SGLang's step annotation; group 1 is its forward mode ({@code DECODE}, {@code EXTEND}...). */
    public static final Pattern SGLANG_STEP = Pattern.compile("^step\\[(\\w+)");
    /** torch.profiler's step op; group 1 is the step number. */
    public static final Pattern PROFILER_STEP_NAME = Pattern.compile("^ProfilerStep#(\\d+)$");
    /** The runtime calls that replay a CUDA (or HIP) graph. */
    public static final List<String> GRAPH_LAUNCHES = List.of("cudaGraphLaunch", "hipGraphLaunch");

    /**
     * The CPU events step annotations are among, as a condition on {@code cpu_ops o} joined with its
     * {@code names n}: user annotations, and torch's {@code ProfilerStep#N} ops. Stage
     * {@code 10-step-annotations} selects them by the same condition (StageDataTest checks it).
     */
    public static final String ANNOTATIONS =
            "(o.kind = 'user_annotation' OR (o.kind = 'cpu_op' AND n.name LIKE 'ProfilerStep#%'))";

    private final String label;

    StepSource(String label) {
        this.label = label;
    }

    /**
     * Whether a step's window starts at its first GPU operation rather than its CPU start (docs/reports.md, "Step
     * time"): graph replays and bursts of GPU work, whose CPU side is a launch call or nothing.
     */
    public boolean gpuAnchored() {
        return this == GRAPH_LAUNCH || this == GAP;
    }

    /** How reports name the source. */
    @Override
    public String label() {
        return label;
    }

    /** The label of a source id; an unknown id prints as it is, a missing one as {@code n/a}. */
    public static String labelOf(String id) {
        return Labelled.labelOf(StepSource.class, id);
    }

    /** The source with this id ({@code steps.source}, report.json's {@code step_source}). */
    public static StepSource of(String id) {
        return Identified.byId(StepSource.class, id).orElseThrow(() -> new IllegalArgumentException("no step source " + id));
    }
}
