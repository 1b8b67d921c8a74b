package dev.steptrace.ingest;

import java.util.List;

/** The per-file outcomes of one ingest, and warnings that concern several files. */
public record IngestReport(List<FileOutcome> files, List<String> warnings, long bytesToLoad) {
    /** True when at least one trace is in the store for the inputs (loaded now or earlier). */
    public boolean anyUsable() {
        return files.stream().anyMatch(f -> f.status().usable());
    }
}
