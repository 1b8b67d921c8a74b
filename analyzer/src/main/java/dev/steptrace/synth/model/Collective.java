package dev.steptrace.synth.model;

/**
 * Whether a kernel is a collective, and whose. Collectives are timed differently from compute
 * kernels: every rank finishes an instance together, so a rank that arrives early spins (waits)
 * inside the kernel, and the kernel's duration is its wait plus the transfer common to all ranks.
 */
public enum Collective {
    NONE,
    /** vLLM's custom all-reduce: a plain kernel launch, no {@code record_param_comms}. */
    CUSTOM_ALLREDUCE,
    /** NCCL all-reduce: launched eagerly from a {@code record_param_comms} op that carries its metadata. */
    NCCL_ALLREDUCE;

    public boolean isCollective() {
        return this != NONE;
    }
}
