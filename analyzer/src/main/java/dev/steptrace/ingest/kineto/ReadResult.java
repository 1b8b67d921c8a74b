package dev.steptrace.ingest.kineto;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What one read kept, dropped, repaired and found damaged. */
public final class ReadResult {
    static final int MAX_METADATA_CHARS = 64 * 1024;

    /** Uncompressed JSON bytes read. */
    public long jsonBytes;
    public long eventsSeen;
    private final long[] kept = new long[EventKind.values().length];
    /** Mutable counters: this is bumped for every flow event, half of a typical trace. */
    private final Map<String, long[]> dropped = new HashMap<>();
    /** The category {@link #dropped} counted last, and its counter. */
    private String lastDropped;
    private long[] lastDroppedCount;
    private final Map<String, Long> anomalies = new TreeMap<>();

    /** Anomalies of an event being scanned, counted only once it is complete (see {@link #hold()}). */
    private final List<String> held = new ArrayList<>();
    private boolean holding;
    private boolean partial;
    private boolean suspect;
    private long damageOffset = -1;
    private String damageReason;
    private long skippedBytes;
    private long rereadUpTo = -1;
    private String rereadReason;

    public long kept(EventKind kind) {
        return kept[kind.ordinal()];
    }

    public long droppedTotal() {
        return dropped.values().stream().mapToLong(c -> c[0]).sum();
    }

    /** Dropped events by category (or by phase for flows, instants, counters), sorted by name. */
    public Map<String, Long> dropped() {
        Map<String, Long> sorted = new TreeMap<>();
        dropped.forEach((k, v) -> sorted.put(k, v[0]));
        return sorted;
    }

    /** Values that were clamped, repaired or ignored, by kind. */
    public Map<String, Long> anomalies() {
        return anomalies;
    }

    /** True when part of the file could not be read: truncated, corrupt, or a region skipped. */
    public boolean partial() {
        return partial;
    }

    /** Byte offset (in the decompressed JSON) of the first damage, or -1. */
    public long damageOffset() {
        return damageOffset;
    }

    public String damageReason() {
        return damageReason;
    }

    public long skippedBytes() {
        return skippedBytes;
    }

    /**
     * Where the file must be read again up to (an offset of the decompressed JSON), or -1: events after
     * it were made from corrupt data and must not be kept. {@link #rereadReason()} says why.
     */
    public long rereadUpTo() {
        return rereadUpTo;
    }

    public String rereadReason() {
        return rereadReason;
    }

    boolean eventsRead() {
        return eventsSeen > 0;
    }

    void countKept(EventKind kind) {
        kept[kind.ordinal()]++;
    }

    /**
     * Counts a dropped event. The counter of the last category is kept at hand: runs of one category (flow
     * events are half of a trace's events) then cost no map lookup each. The categories are constants, so
     * the same string is the same object; another object with the same text only takes the lookup.
     */
    void dropped(String category) {
        if (category != lastDropped) {
            lastDroppedCount = dropped.computeIfAbsent(category, k -> new long[1]);
            lastDropped = category;
        }
        lastDroppedCount[0]++;
    }

    void anomaly(String what) {
        if (holding) {
            held.add(what);
            return;
        }
        anomalies.merge(what, 1L, Long::sum);
    }

    /** Counts {@code count} anomalies of one kind at once (a {@link ParallelScan} worker's). */
    void anomalies(String what, long count) {
        anomalies.merge(what, count, Long::sum);
    }

    /** The anomalies counted so far, which this result then forgets. */
    Map<String, Long> takeAnomalies() {
        if (anomalies.isEmpty()) {
            return Map.of();
        }
        Map<String, Long> taken = new TreeMap<>(anomalies);
        anomalies.clear();
        return taken;
    }

    /**
     * Anomalies from now on are held until {@link #release}: the scanner may give an event up half-way
     * (to read more input, or to hand it to Jackson) and read it again.
     */
    void hold() {
        holding = true;
        held.clear();
    }

    /** Ends {@link #hold()}: the held anomalies count when {@code keep}, else they are forgotten. */
    void release(boolean keep) {
        holding = false;
        if (held.isEmpty()) {
            return; // nearly every event: no iterator for nothing
        }
        if (keep) {
            for (int i = 0; i < held.size(); i++) {
                anomaly(held.get(i));
            }
        }
        held.clear();
    }

    void markDamaged(long offset, String reason) {
        if (!partial) {
            partial = true;
            damageOffset = offset;
            damageReason = reason + " at byte " + offset;
        }
    }

    /** Damage after which the content read may be wrong: it names the file's damage, whatever came before. */
    void markSuspect(long offset, String reason) {
        if (!suspect) {
            partial = false;
            markDamaged(offset, reason);
            suspect = true;
        }
    }

    void rereadUpTo(long offset, String reason) {
        rereadUpTo = offset;
        rereadReason = reason;
    }

    void skipped(long from, long to, String reason) {
        markDamaged(from, reason);
        skippedBytes += Math.max(0, to - from);
        anomaly("damaged_regions_skipped");
    }
}
