package dev.steptrace.ingest;

/**
 * The times a stored event may have, so that no query on the store can overflow a 64-bit integer:
 * starts from the Unix epoch up to 2^62 ns (the year 2116), durations up to 2^53 ns (104 days; a double
 * holds it exactly). Any start, end or difference of two of them then fits in a BIGINT with room to
 * spare. Events outside are dropped and counted (docs/schema.md, anomalies).
 */
public final class TimeLimits {
    /** Exclusive upper bound of a stored start, in ns since the epoch. */
    public static final long MAX_TS_NS = 1L << 62;
    /** Inclusive upper bound of a stored duration, in ns. */
    public static final long MAX_DUR_NS = 1L << 53;

    private TimeLimits() {}

    /** Whether an event at {@code base + ts} lasting {@code dur} may be stored. */
    public static boolean fits(long base, long ts, long dur) {
        return base >= 0 && base < MAX_TS_NS && ts >= -base && ts < MAX_TS_NS - base
                && dur >= 0 && dur <= MAX_DUR_NS;
    }

    /** Whether a file's clock base may be added to its times. */
    public static boolean baseFits(long base) {
        return base >= 0 && base < MAX_TS_NS;
    }
}
