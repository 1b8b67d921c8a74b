package dev.steptrace.synth.model;

/**
 * The launch configuration a profiler records with a kernel (grid, block, registers, shared memory).
 * Analyses do not depend on it, but real traces always carry it, so synthetic ones do too.
 */
public record LaunchShape(int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
                          int registersPerThread, int sharedMemory) {

    public static LaunchShape of(int gridX, int blockX, int registersPerThread, int sharedMemory) {
        return new LaunchShape(gridX, 1, 1, blockX, 1, 1, registersPerThread, sharedMemory);
    }

    public long blocks() {
        return (long) gridX * gridY * gridZ;
    }

    public int threadsPerBlock() {
        return blockX * blockY * blockZ;
    }
}
