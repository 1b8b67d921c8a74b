package dev.steptrace.timeline;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link Timeline#write} wrote.
 *
 * @param steps         the steps written, by position in the phase
 * @param slowestStep   the phase's slowest step (largest GPU span on any rank)
 * @param slowestSpanNs its span on that rank
 * @param slowestRank   that rank
 * @param events        trace events in the file
 * @param bytes         the file's size
 */
public record TimelineResult(Path file, String phase, List<Integer> steps, int slowestStep, long slowestSpanNs,
                             int slowestRank, List<Integer> ranks, ClockAlignment alignment, long events, long bytes) {}
