package dev.steptrace.api;

import java.nio.file.Path;
import java.util.List;

/**
 * A capture in the store (one run: the per-rank trace files of a directory that belong together, or one
 * file taken alone; docs/schema.md, "Captures"), as {@link Steptrace#captureList()} lists it.
 *
 * @param id           the store's {@code captures.capture_id}
 * @param name         its name, unique in the store (the directory's, with a suffix when the directory
 *                     holds several captures)
 * @param path         the directory holding its files (absolute)
 * @param files        trace files in the store
 * @param ranks        the ranks of those files, sorted
 * @param partialFiles files only partly read (cut or damaged)
 * @param kernels      kernel events in the store
 */
public record CaptureInfo(int id, String name, Path path, int files, List<Integer> ranks, int partialFiles,
                          long kernels) {}
