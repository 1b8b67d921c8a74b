package dev.steptrace.ingest;

import java.util.List;

/**
 * The per-file outcomes of one ingest, and warnings that concern several files.
 *
 * @param storeProblem    why nothing could be loaded when the store, not the traces, is at fault (it is
 *                        read-only, full or broken), else null
 * @param changedCaptures the captures of the directories whose files changed (loaded, or their rows removed),
 *                        by id: those to analyse again
 * @param filesRemoved    the files whose rows from an earlier ingest this one removed from the store (no longer
 *                        on disk, no longer a trace, or now a copy of another file): each is skipped, saying so
 */
public record IngestReport(List<FileOutcome> files, List<String> warnings, long bytesToLoad, String storeProblem,
                           List<Integer> changedCaptures, int filesRemoved) {
    /** True when at least one trace is in the store for the inputs (loaded now or earlier, or as the file it copies). */
    public boolean anyUsable() {
        return files.stream().anyMatch(FileOutcome::inStore);
    }
}
