package dev.steptrace.ingest;

import dev.steptrace.common.FileKind;
import dev.steptrace.common.Messages;
import dev.steptrace.common.OutputFiles;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the traces under the paths given on the command line (directories recursively) and asks the
 * {@link Importers} what each file is, from its first bytes and name (a directory can be one trace
 * too: an nsys Parquet export). A file no importer claims is reported as skipped, with the reason.
 *
 * <p>Links: a path given is followed to where it leads (a link to a run's directory is that
 * directory), links to directories met inside it are not (they may loop), and a link to a file is
 * the trace where the link lies ({@link #storedPath}): a directory of links to the ranks' files is
 * one capture, wherever the files themselves are.
 */
public final class TraceDiscovery {
    private TraceDiscovery() {}

    /**
     * A file that looks like a trace, with the importer that claimed it and its format id; {@code dir}
     * is the directory whose traces are grouped into captures (its parent; for an nsys Parquet export,
     * the directory's parent).
     */
    public record Found(Path path, Path dir, Importer importer, String format, boolean compressed) {
        /** Whether its importer has {@code capability}. */
        public boolean can(Importer.Capability capability) {
            return importer.capabilities().contains(capability);
        }
    }

    /**
     * A path that is not loaded: not a trace ({@code failed} false), or one that could not be read
     * ({@code failed} true: permissions, I/O errors).
     */
    public record Skipped(Path path, String reason, boolean failed) {
        static Skipped notATrace(Path path, String reason) {
            return new Skipped(path, reason, false);
        }

        static Skipped unreadable(Path path, IOException e) {
            return new Skipped(path, "cannot read: " + Messages.io(e), true);
        }
    }

    public record Result(List<Found> traces, List<Skipped> skipped) {}

    /**
     * @param exclude files never to treat as input (the store itself when it lies under an input)
     * @throws NoSuchFileException when an input path does not exist
     */
    public static Result discover(List<Path> inputs, Set<Path> exclude) throws IOException {
        Map<Path, Found> traces = new LinkedHashMap<>();
        List<Skipped> skipped = new ArrayList<>();
        for (Path input : inputs) {
            Path abs = input.toAbsolutePath().normalize();
            if (!Files.exists(abs)) {
                throw new NoSuchFileException(input.toString(), null, "no such file or directory");
            }
            List<Path> files = new ArrayList<>();
            List<Found> traceDirs = new ArrayList<>();
            Path stored = storedPath(abs);
            boolean given = !Files.isDirectory(stored);
            if (given) {
                files.add(stored);
            } else {
                walk(stored, files, traceDirs, skipped);
            }
            for (Found dir : traceDirs) {
                traces.putIfAbsent(dir.path(), dir);
            }
            for (Path file : files) {
                Path real;
                try {
                    real = file.toRealPath();
                } catch (IOException e) {
                    skipped.add(Skipped.unreadable(file, e));
                    continue;
                }
                if (traces.containsKey(file) || exclude.contains(real) || isStoreFile(real)) {
                    continue;
                }
                String special = FileKind.notRegular(real);
                if (special != null) {
                    // Never opened: a FIFO would block the ingest, a device could be read for ever.
                    skipped.add(Skipped.notATrace(file, special + ": not read"));
                    continue;
                }
                try {
                    Sniffed what = identify(file, given);
                    if (what.found() != null) {
                        traces.put(file, what.found());
                    } else {
                        skipped.add(Skipped.notATrace(file, what.reason()));
                    }
                } catch (IOException e) {
                    skipped.add(Skipped.unreadable(file, e));
                }
            }
        }
        return new Result(new ArrayList<>(traces.values()), skipped);
    }

    /**
     * Where the store keeps a trace found at {@code path}, and what its captures are looked up by: a
     * directory's real path; a file's own name in its directory's real path, so that a link to a trace
     * is kept (and grouped into captures) where the link lies, not where it leads.
     */
    public static Path storedPath(Path path) throws IOException {
        Path abs = path.toAbsolutePath().normalize();
        Path parent = abs.getParent();
        if (parent == null || Files.isDirectory(abs)) {
            return abs.toRealPath();
        }
        return parent.toRealPath().resolve(abs.getFileName());
    }

    /**
     * Regular files under {@code dir} in path order, except inside directories that are one trace (nsys
     * Parquet exports), which are collected whole (the directory given itself included).
     */
    private static void walk(Path dir, List<Path> files, List<Found> traceDirs, List<Skipped> skipped)
            throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                if (!d.equals(dir) && d.getFileName().toString().equals(OutputFiles.DEFAULT_DIR)) {
                    // steptrace's own output folder (report . writes into ./steptrace-out): never an input.
                    return FileVisitResult.SKIP_SUBTREE;
                }
                try {
                    Found trace = traceDirectory(d);
                    if (trace != null) {
                        traceDirs.add(trace);
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                } catch (IOException e) {
                    skipped.add(Skipped.unreadable(d, e));
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                if (attrs.isSymbolicLink() && Files.isDirectory(f)) {
                    skipped.add(Skipped.notATrace(f, "a link to a directory: not followed"));
                } else {
                    // Links to files, broken links and special files: checked one by one in discover.
                    found.add(f);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                // One unreadable directory or file costs itself, not the rest of the capture.
                skipped.add(Skipped.unreadable(f, e));
                return FileVisitResult.CONTINUE;
            }
        });
        found.sort(null);
        files.addAll(found);
        traceDirs.sort(java.util.Comparator.comparing(Found::path));
    }

    /** The trace a directory is as a whole (an nsys Parquet export), or null for an ordinary directory. */
    public static Found traceDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        for (Importer importer : Importers.ALL) {
            Recognition r = importer.recognizeDirectory(dir);
            if (r != null && r.claimed()) {
                Path real = dir.toRealPath();
                return new Found(real, real.getParent(), importer, r.format(), false);
            }
        }
        return null;
    }

    private static boolean isStoreFile(Path p) {
        String name = p.getFileName().toString();
        return name.endsWith(".duckdb") || name.endsWith(".duckdb.wal");
    }

    /** A file's trace, or why it is not one. */
    record Sniffed(Found found, String reason) {}

    /**
     * Asks every importer: the first claim wins; without one, the first refusal is the reason (see
     * {@link Importers} on the order).
     */
    static Sniffed identify(Path p, boolean given) throws IOException {
        FileHead head = FileHead.read(p, given);
        String refusal = null;
        for (Importer importer : Importers.ALL) {
            Recognition r = importer.recognize(head);
            if (r == null) {
                continue;
            }
            if (r.claimed()) {
                return new Sniffed(new Found(p, p.getParent(), importer, r.format(), r.compressed()), null);
            }
            if (refusal == null) {
                refusal = r.reason();
            }
        }
        return new Sniffed(null, refusal != null ? refusal : "not a trace format steptrace reads");
    }
}
