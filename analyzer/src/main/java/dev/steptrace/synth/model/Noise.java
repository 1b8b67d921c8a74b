package dev.steptrace.synth.model;

/**
 * Deterministic randomness addressed by coordinates instead of drawn from a stream: a value depends
 * only on the seed and on (purpose, a, b, c), typically (step, entry, rank). Every rank's writer
 * recomputes the other ranks' timing (collectives couple them) in its own thread, so a stateful
 * generator would make the output depend on scheduling; a counter-based hash makes every thread see
 * the same numbers. One hash is cut into several fields where a call site needs several values.
 */
final class Noise {
    static final int KERNEL = 1;
    static final int HOST = 2;
    static final int COLLECTIVE = 3;
    static final int RANK = 4;
    static final int STEP = 5;
    static final int COMMS_ID = 6;

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final long seed;

    Noise(long seed) {
        this.seed = mix(seed ^ 0x5DEECE66DL);
    }

    /** 64 well-mixed bits for these coordinates. */
    long bits(int purpose, long a, long b, long c) {
        long h = mix(seed + purpose * GOLDEN);
        h = mix(h ^ (a * 0xC2B2AE3D27D4EB4FL + GOLDEN));
        h = mix(h ^ (b * 0x165667B19E3779F9L + GOLDEN));
        return mix(h ^ (c * 0x27D4EB2F165667C5L + GOLDEN));
    }

    /** Triangular in (-1, 1) with mean 0, from the upper 48 bits: jitter that is symmetric and rarely extreme. */
    static double centered(long bits) {
        double u1 = (bits >>> 40) * 0x1.0p-24;
        double u2 = ((bits >>> 16) & 0xFFFFFF) * 0x1.0p-24;
        return u1 + u2 - 1;
    }

    /** Uniform in [lo, hi) from the low 16 bits (the part {@link #centered} leaves unused). */
    static long low16(long bits, long lo, long hi) {
        return lo + ((bits & 0xFFFF) * (hi - lo) >>> 16);
    }

    /** Uniform in [lo, hi) from byte {@code slot} (0-7): eight independent coarse values per hash. */
    static long slot(long bits, int slot, long lo, long hi) {
        return lo + (((bits >>> (slot * 8)) & 0xFF) * (hi - lo) >>> 8);
    }

    /** Uniform in [lo, hi) from all 53 upper bits. */
    static long between(long bits, long lo, long hi) {
        return lo + (long) ((bits >>> 11) * 0x1.0p-53 * (hi - lo));
    }

    /** SplitMix64's finalizer. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
