package dev.steptrace.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Which files a trace is, and the size and last change of each: another identity after a load means a file
 * was replaced (a copy renamed over it, as rsync does), written to, added or removed while it was read, so
 * the rows read and the fingerprint stored need not describe one and the same content. The files are those
 * the fingerprint covers ({@link Importer#parts}): an nsys Parquet export's tables, not its directory, whose
 * own size and time stay the same when a table is rewritten in place.
 *
 * <p>The same identity also tells an unchanged file without reading it ({@link #stamp}), on the local file
 * systems whose change time the kernel keeps ({@link #KEEPS_CHANGE_TIME}): it is set on every write, truncation,
 * rename and change of the modification time, and no program can set it back (docs/schema.md,
 * {@code files.file_stat}).
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
     * The local file system types (as Linux and macOS name them) whose change time the kernel keeps. Elsewhere a
     * program may set it, or it is the modification time under another name (sshfs and other FUSE file systems,
     * FAT, exFAT, SMB), or, on NFS, Lustre and GPFS, it may come from the clock of the client that wrote the
     * file, so that a rewrite from one whose clock lags could leave it as it was: a file is always read there.
     */
    private static final Set<String> KEEPS_CHANGE_TIME = Set.of("ext2", "ext3", "ext4", "xfs", "btrfs", "zfs",
            "f2fs", "tmpfs", "overlay", "apfs");
    /** Whether each device's file system keeps change times: found once per device (a scan of the mount table). */
    private static final Map<Object, Boolean> KEEPS_BY_DEVICE = new ConcurrentHashMap<>();

    /**
     * @param fileKey the file system's key of the file (device and inode on Linux), or null where it has none
     * @param changed the file's change time (POSIX {@code ctime}) where its file system keeps it, else null
     */
    record Part(Path path, Object fileKey, long size, FileTime modified, FileTime changed) {}

    static FileIdentity of(TraceDiscovery.Found trace) throws IOException {
        List<Part> parts = new ArrayList<>();
        for (Path p : trace.importer().parts(trace.path())) {
            parts.add(part(p));
        }
        return new FileIdentity(parts);
    }

    /** Whether the stamps of files at {@code path} are kept: their file system keeps change times. */
    static boolean stampsKept(Path path) throws IOException {
        return part(path).changed != null;
    }

    /** One file's identity, from one {@code stat} where the file system is POSIX. */
    private static Part part(Path p) throws IOException {
        Map<String, Object> a;
        try {
            a = Files.readAttributes(p, "unix:dev,ino,size,lastModifiedTime,ctime");
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            // Not POSIX (Windows, a zip file system): no change time.
            BasicFileAttributes b = Files.readAttributes(p, BasicFileAttributes.class);
            return new Part(p, b.fileKey(), b.size(), b.lastModifiedTime(), null);
        }
        Object device = a.get("dev");
        boolean keeps = KEEPS_BY_DEVICE.computeIfAbsent(device, d -> keepsChangeTime(p));
        return new Part(p, "dev=" + device + ",ino=" + a.get("ino"), (Long) a.get("size"),
                (FileTime) a.get("lastModifiedTime"), keeps ? (FileTime) a.get("ctime") : null);
    }

    private static boolean keepsChangeTime(Path p) {
        try {
            return KEEPS_CHANGE_TIME.contains(Files.getFileStore(p).type());
        } catch (IOException e) {
            // No file system known for it (the JDK finds none in some containers' mount tables): the file is read
            // at every ingest, as it would be without stamps, not failed.
            return false;
        }
    }

    /**
     * Whether {@code trace} is still these files: the same keys, sizes and modification times. A change of the
     * change time alone (permissions, a hard link) is not a change of content.
     */
    boolean isStill(TraceDiscovery.Found trace) throws IOException {
        return isStill(of(trace));
    }

    /**
     * Whether {@code other} is these files, unchanged: by their stamps where both have one (the change times
     * included), else as {@link #isStill(FileIdentity)} tells.
     */
    boolean sameAs(FileIdentity other) {
        String stamp = stamp();
        return stamp != null ? stamp.equals(other.stamp()) : isStill(other);
    }

    boolean isStill(FileIdentity now) {
        if (parts.size() != now.parts.size()) {
            return false;
        }
        for (int i = 0; i < parts.size(); i++) {
            Part a = parts.get(i);
            Part b = now.parts.get(i);
            if (!a.path.equals(b.path) || !Objects.equals(a.fileKey, b.fileKey) || a.size != b.size
                    || !a.modified.equals(b.modified)) {
                return false;
            }
        }
        return true;
    }

    /**
     * These files' identity as one line, for the store: equal lines mean the same files, not written to since;
     * null where a file has no key or no change time.
     */
    String stamp() {
        if (parts.isEmpty()) {
            return null;
        }
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
     * The stamp of a content read from these files from {@code readFromMillis} on (this identity taken then),
     * whose identity after the read was {@code after}: null where it cannot be trusted to tell the next change,
     * because the files changed during the read, or a file was changed less than {@link #SETTLED_MILLIS} before
     * it began, or its change time is ahead of this clock.
     */
    String stampOfRead(long readFromMillis, FileIdentity after) {
        String stamp = stamp();
        if (stamp == null || !stamp.equals(after.stamp())) {
            return null;
        }
        for (Part p : parts) {
            if (p.changed.toMillis() > readFromMillis - SETTLED_MILLIS) {
                return null;
            }
        }
        return stamp;
    }

    private static long nanos(FileTime t) {
        return t.to(TimeUnit.NANOSECONDS);
    }
}
