package dev.steptrace.classify;

import java.util.List;

/**
 * What a trace says around a kernel's launch call (docs/taxonomy.md, "Classes from the launching op"): the names
 * of the CPU ops that enclose it on the launching thread, and of the user annotations and nn.Module ranges
 * ({@code nn.Module: FusedMoE_0}) that enclose it, any order.
 */
public record LaunchContext(List<String> ops, List<String> within) {
    public LaunchContext {
        ops = List.copyOf(ops);
        within = List.copyOf(within);
    }

    /** Nothing around the launch. */
    public static final LaunchContext NONE = new LaunchContext(List.of(), List.of());

    public boolean isEmpty() {
        return ops.isEmpty() && within.isEmpty();
    }
}
