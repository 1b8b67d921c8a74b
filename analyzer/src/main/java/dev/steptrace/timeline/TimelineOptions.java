package dev.steptrace.timeline;

import java.util.List;

/**
 * What {@code steptrace timeline} writes (docs/timeline.md).
 *
 * @param phase     the phase whose steps are chosen; null: decode, else the first phase with steps
 *                  (prefill, mixed, unknown)
 * @param steps      steps by their position in the phase ({@code phase_index}, the report's step
 *                   column); null or empty: the slowest step
 * @param neighbours with the slowest step, the steps just before and after it
 * @param ranks      ranks to write; null or empty: every rank
 * @param alignment  how rank clocks are aligned
 */
public record TimelineOptions(String phase, List<Integer> steps, boolean neighbours, List<Integer> ranks,
                              Alignment alignment) {
    /** How the ranks' clocks are put on one time axis. */
    public enum Alignment {
        /** Per-rank offsets from the end times of collective instances ({@code ClockOffsets}). */
        COLLECTIVES,
        /** The traces' own clocks. */
        NONE
    }

    public TimelineOptions {
        steps = steps == null ? List.of() : List.copyOf(steps);
        ranks = ranks == null ? List.of() : List.copyOf(ranks);
        alignment = alignment == null ? Alignment.COLLECTIVES : alignment;
    }

    /** The slowest step of the default phase and its neighbours, every rank, aligned: the command's default. */
    public static TimelineOptions slowest() {
        return new TimelineOptions(null, null, true, null, Alignment.COLLECTIVES);
    }

    /** The slowest step of a phase (null: the default phase) alone, every rank, aligned: what {@code report} writes. */
    public static TimelineOptions slowestAlone(String phase) {
        return new TimelineOptions(phase, null, false, null, Alignment.COLLECTIVES);
    }
}
