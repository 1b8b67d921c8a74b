package dev.steptrace.ingest;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What ingest did with one file: the rows of the per-file summary and of {@code ingest --json}.
 *
 * @param capture the name of the capture the file is in; null when it is not in the store
 * @param counts kept events by kind: kernel, memcpy, memset, runtime (CUDA runtime and driver calls),
 *               cpu_op, annotation (user and GPU user annotations); empty when nothing was loaded
 */
public record FileOutcome(Path path, String capture, Integer rank, Status status, String reason,
                          Map<String, Long> counts, long jsonBytes, double seconds) {

    public enum Status {
        INGESTED, UNCHANGED, PARTIAL, SKIPPED, FAILED;

        public String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The file's rows are in the store (now or from an earlier run). */
        public boolean usable() {
            return this == INGESTED || this == UNCHANGED || this == PARTIAL;
        }
    }

    public static FileOutcome notLoaded(Path path, Status status, String reason) {
        return new FileOutcome(path, null, null, status, reason, emptyCounts(), 0, 0);
    }

    public FileOutcome withRank(Integer newRank) {
        return new FileOutcome(path, capture, newRank, status, reason, counts, jsonBytes, seconds);
    }

    public FileOutcome withCapture(String captureName) {
        return new FileOutcome(path, captureName, rank, status, reason, counts, jsonBytes, seconds);
    }

    static Map<String, Long> emptyCounts() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String k : new String[] {"kernel", "memcpy", "memset", "runtime", "cpu_op", "annotation"}) {
            m.put(k, 0L);
        }
        return m;
    }
}
