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
 * @param copyOf for a file skipped as a copy, the file of its directory whose content it holds (in the store,
 *               whose capture and rank it is given); else null
 */
public record FileOutcome(Path path, String capture, Integer rank, Status status, String reason,
                          Map<String, Long> counts, long jsonBytes, double seconds, Path copyOf) {

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
        return new FileOutcome(path, null, null, status, reason, emptyCounts(), 0, 0, null);
    }

    /** A file skipped because it holds the content of {@code original}, a file of its directory. */
    public static FileOutcome copy(Path path, Path original, String reason) {
        return new FileOutcome(path, null, null, Status.SKIPPED, reason, emptyCounts(), 0, 0, original);
    }

    /** Its rows are in the store, or those of the file it is a copy of. */
    public boolean inStore() {
        return status.usable() || copyOf != null;
    }

    public FileOutcome withRank(Integer newRank) {
        return new FileOutcome(path, capture, newRank, status, reason, counts, jsonBytes, seconds, copyOf);
    }

    public FileOutcome withCapture(String captureName) {
        return new FileOutcome(path, captureName, rank, status, reason, counts, jsonBytes, seconds, copyOf);
    }

    static Map<String, Long> emptyCounts() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String k : new String[] {"kernel", "memcpy", "memset", "runtime", "cpu_op", "annotation"}) {
            m.put(k, 0L);
        }
        return m;
    }
}
