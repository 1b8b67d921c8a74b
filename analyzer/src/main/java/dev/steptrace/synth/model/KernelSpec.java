package dev.steptrace.synth.model;

import dev.steptrace.classify.Category;

import java.util.Objects;

/**
 * What one GPU activity of the workload is: the name a profiler prints, the category and subcategory
 * it is ground truth for, and how the host reaches it when it is launched eagerly (launch API, the
 * {@code cpu_op} that launches it, and the op scope around it). The same spec is reused wherever the
 * model runs the same kernel; durations live in {@link TemplateEntry}.
 *
 * @param name        demangled kernel name as Kineto writes it, or the memcpy name for {@link Category#MEMCPY}
 * @param op          leaf {@code cpu_op} whose launch this is; {@code null} when the launch sits directly in
 *                    the scope (Triton kernels called from Python have no aten op of their own)
 * @param sharesOp    launched by the same leaf op as the previous kernel (cuBLAS split-K reduce, a
 *                    second kernel of one custom op), so both carry that op's {@code External id}
 * @param memcpyBytes bytes moved, for a memcpy; 0 for kernels
 */
public record KernelSpec(String name, Category category, String subcategory, Collective collective,
                         LaunchApi launch, String op, boolean sharesOp, LaunchShape shape, long memcpyBytes) {

    public KernelSpec {
        Objects.requireNonNull(name);
        Objects.requireNonNull(category);
        Objects.requireNonNull(subcategory);
        Objects.requireNonNull(collective);
        Objects.requireNonNull(launch);
    }

    public boolean isMemcpy() {
        return category == Category.MEMCPY;
    }
}
