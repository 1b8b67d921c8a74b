package dev.steptrace.api;

import java.nio.file.Path;
import java.util.List;

/**
 * A capture in the store (a directory of per-rank trace files), as {@link Steptrace#captureList()}
 * lists it.
 *
 * @param id           the store's {@code captures.capture_id}
 * @param name         the directory's name
 * @param path         the directory (absolute)
 * @param files        trace files in the store
 * @param ranks        the ranks of those files, sorted
 * @param partialFiles files only partly read (cut or damaged)
 * @param kernels      kernel events in the store
 */
public record CaptureInfo(int id, String name, Path path, int files, List<Integer> ranks, int partialFiles,
                          long kernels) {}
