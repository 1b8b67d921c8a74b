package dev.steptrace.ingest.kineto;

/**
 * Receives what {@link KinetoReader} keeps from one trace file, in file order. The header and metadata
 * callbacks ignore what they are given unless overridden, so a reader that wants only the events
 * (a benchmark, a test) is a lambda.
 */
@FunctionalInterface
public interface TraceEventSink {
    /** A kept complete event; the holder is reused after this call returns. */
    void event(TraceEvent event);

    /** {@code baseTimeNanoseconds}: may arrive before or after the events (older builds wrote it last). */
    default void baseTimeNanos(long baseNs, boolean beforeEvents) {
    }

    default void device(DeviceInfo device) {
    }

    /** {@code distributedInfo} as JSON, with the rank and world size it states (null when absent). */
    default void distributedInfo(String json, Integer rank, Integer worldSize) {
    }

    /** Any other top-level key, with its value as JSON. */
    default void metadata(String key, String json) {
    }

    /** A {@code ph:"M"} process or thread metadata event; {@code tid} is null for process rows. */
    default void track(long pid, Long tid, String field, String value, Long sortIndex) {
    }

    /** One entry of {@code deviceProperties}. */
    record DeviceInfo(int id, String name, Long totalMemory, Integer computeMajor, Integer computeMinor,
                      Integer numSms, String json) {}
}
