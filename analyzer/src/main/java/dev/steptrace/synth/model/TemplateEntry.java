package dev.steptrace.synth.model;

/**
 * One GPU activity in a step's fixed order, with its nominal duration.
 *
 * @param baseNs  duration before {@code --scale} and jitter; for a collective, the mean over ranks of
 *                its duration (wait plus transfer)
 * @param scope   name of the enclosing {@code cpu_op} in eager launches, or {@code null}
 * @param scopeId consecutive entries with the same non-zero id share one scope op; 0 = no scope
 */
public record TemplateEntry(KernelSpec spec, long baseNs, String scope, int scopeId) {
}
