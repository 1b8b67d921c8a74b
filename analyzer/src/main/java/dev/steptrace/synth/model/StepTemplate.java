package dev.steptrace.synth.model;

import java.util.List;

/**
 * The fixed sequence of GPU activities of one step of a phase, and how the host issues it. Every step
 * of a phase replays its template; only the timing varies (jitter, waits), so calls per step are exact
 * and EXPECTED.json can state them as integers.
 *
 * @param annotation the vLLM {@code execute_context_...} step annotation
 * @param allReduceElements elements of each all-reduce's message (hidden size x tokens in the batch)
 * @param cudaGraph  whether the step's kernels are one CUDA-graph replay ({@code cudaGraphLaunch}) rather
 *                   than eager launches; the trailing memcpy is always launched eagerly
 */
public record StepTemplate(Phase phase, String annotation, long allReduceElements, boolean cudaGraph,
                           List<TemplateEntry> entries) {
    public StepTemplate {
        entries = List.copyOf(entries);
    }
}
