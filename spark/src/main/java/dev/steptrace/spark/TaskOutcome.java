package dev.steptrace.spark;

import java.io.Serializable;
import java.util.Map;

/**
 * What a task made of one of its traces.
 *
 * @param trace   the trace file
 * @param capture the capture's name
 * @param rank    the file's rank, when it was loaded
 * @param status  the ingest's word for the file ({@code ingested}, {@code partial}, {@code skipped}...)
 * @param reason  why it is partial or not loaded (null when it loaded whole)
 * @param rows    rows written to the dataset, by table
 * @param bytes   the trace's size
 * @param seconds   the trace's load into the task's store, wall time
 * @param partition the Spark partition (one task) that analysed it
 */
public record TaskOutcome(String trace, String capture, Integer rank, String status, String reason,
                          Map<String, Long> rows, long bytes, double seconds, int partition) implements Serializable {
    public boolean loaded() {
        return "ingested".equals(status) || "partial".equals(status);
    }
}
