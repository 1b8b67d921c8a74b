package dev.steptrace.synth;

import dev.steptrace.synth.model.WorkloadConfig;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A {@code steptrace synth} run: the workload plus how much of it to write and where. Two runs with
 * equal configs write byte-identical files.
 *
 * @param steps        decode steps at least; {@code targetSize} may ask for more
 * @param targetSize   uncompressed JSON bytes each rank file must reach (0 = no target)
 */
public record SynthConfig(WorkloadConfig workload, int steps, int prefillSteps, long targetSize, boolean gzip, Path out) {
    public SynthConfig {
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(out, "out");
        if (steps < 1) {
            throw new IllegalArgumentException("--steps must be at least 1");
        }
        if (prefillSteps < 0) {
            throw new IllegalArgumentException("--prefill-steps must not be negative");
        }
        if (targetSize < 0) {
            throw new IllegalArgumentException("--target-size must not be negative");
        }
    }
}
