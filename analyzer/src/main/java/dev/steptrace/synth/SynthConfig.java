package dev.steptrace.synth;

import dev.steptrace.synth.model.WorkloadConfig;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A {@code steptrace synth} run: the workload plus how much of it to write and where. Two runs with
 * equal configs write byte-identical files.
 *
 * @param steps        decode steps at least; {@code targetSize} may ask for more
 * @param targetSize   uncompressed JSON bytes each rank file must reach (0 = no target; Kineto only)
 * @param format       Kineto JSON or an Nsight Systems SQLite export per rank
 */
public record SynthConfig(WorkloadConfig workload, int steps, int prefillSteps, long targetSize, boolean gzip, Path out,
                          SynthFormat format) {
    public SynthConfig {
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(format, "format");
        if (format != SynthFormat.KINETO && targetSize > 0) {
            throw new IllegalArgumentException("--target-size sizes Kineto JSON; with --format " + format.id()
                    + " choose the size with --steps");
        }
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

    /** A Kineto capture. */
    public SynthConfig(WorkloadConfig workload, int steps, int prefillSteps, long targetSize, boolean gzip, Path out) {
        this(workload, steps, prefillSteps, targetSize, gzip, out, SynthFormat.KINETO);
    }
}
