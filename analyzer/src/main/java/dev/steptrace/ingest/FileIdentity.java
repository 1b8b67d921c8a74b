package dev.steptrace.ingest;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Which files a trace is, and the size and last change of each: another identity after a load means a file
 * was replaced (a copy renamed over it, as rsync does), written to, added or removed while it was read, so
 * the rows read and the fingerprint stored need not describe one and the same content. The files are those
 * the fingerprint covers ({@link Importer#parts}): an nsys Parquet export's tables, not its directory, whose
 * own size and time stay the same when a table is rewritten in place.
 *
 * <p>The same identity also tells an unchanged file without reading it ({@link #stamp}), where the file
 * system has a change time: the kernel sets it on every write, truncation, rename and change of the
 * modification time, and no program can set it back (docs/schema.md, {@code files.file_stat}).
 *
 * @param parts each file of the trace, in the importer's order
 */
record FileIdentity(List<Part> parts) {
    /**
     * How long before a read began the files' last change must lie for their stamp to be kept: a file system
     * stamps changes with a coarse clock (a few ms on Linux, a second on older file systems), so a write during
     * the read within the same tick as the write before it would leave the stamp as it was.
     */
    static final long SETTLED_MILLIS = 3_000;

    /**
     * @param fileKey the file system's key of the file (device and inode on Linux), or null where it has none
     * @param changed the file's change time (POSIX {@code ctime}), or null where the file system has none
     */
    record Part(Path path, Object fileKey, long size, FileTime modified, FileTime changed) {}

    static FileIdentity of(TraceDiscovery.Found trace) throws IOException {
        List<Part> parts = new ArrayList<>();
        for (Path p : trace.importer().parts(trace.path())) {
            // Opened first: an NFS client answers a bare stat from attributes it cached up to a minute ago,
            // and checks them with the server on an open (close-to-open consistency).
            try (FileChannel opened = FileChannel.open(p, StandardOpenOption.READ)) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                parts.add(new Part(p, a.fileKey(), a.size(), a.lastModifiedTime(), changeTime(p)));
            }
        }
        return new FileIdentity(parts);
    }

    private static FileTime changeTime(Path p) throws IOException {
        try {
            Map<String, Object> unix = Files.readAttributes(p, "unix:ctime");
            return (FileTime) unix.get("ctime");
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            // Not a POSIX file system (Windows, a zip file system): no change time to trust.
            return null;
        }
    }

    /** Whether {@code trace} is still these files, unchanged. */
    boolean isStill(TraceDiscovery.Found trace) throws IOException {
        return equals(of(trace));
    }

    /**
     * These files' identity as one line, for the store: equal lines mean the same files, not written to since;
     * null where a file has no key or no change time.
     */
    String stamp() {
        StringBuilder s = new StringBuilder();
        for (Part p : parts) {
            if (p.fileKey == null || p.changed == null) {
                return null;
            }
            s.append(s.length() == 0 ? "" : "; ").append(p.path.getFileName()).append(' ').append(p.fileKey)
                    .append(" size=").append(p.size).append(" mtime=").append(nanos(p.modified))
                    .append(" ctime=").append(nanos(p.changed));
        }
        return s.toString();
    }

    /**
     * The stamp of a content read from these files from {@code readFromMillis} on (this identity taken then,
     * and found again after the read): null where it cannot be trusted to tell the next change, because a
     * file was changed less than {@link #SETTLED_MILLIS} before, or its change time is ahead of this clock.
     */
    String stampOfRead(long readFromMillis) {
        for (Part p : parts) {
            if (p.changed == null || p.changed.toMillis() > readFromMillis - SETTLED_MILLIS) {
                return null;
            }
        }
        return stamp();
    }

    private static long nanos(FileTime t) {
        return t.to(TimeUnit.NANOSECONDS);
    }
}
