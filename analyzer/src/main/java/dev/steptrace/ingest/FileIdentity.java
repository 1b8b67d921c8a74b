package dev.steptrace.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * Which file a path names, and its size and last change: another identity after a load means the path was
 * replaced (a copy renamed over it, as rsync does) or written to while it was read, so the rows read and the
 * fingerprint stored need not describe one and the same content.
 *
 * @param fileKey the file system's key of the file (device and inode on Linux), or null where it has none
 */
record FileIdentity(Object fileKey, long size, FileTime modified) {
    static FileIdentity of(Path path) throws IOException {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
        return new FileIdentity(a.fileKey(), a.size(), a.lastModifiedTime());
    }

    /** Whether {@code path} still names this file, unchanged. */
    boolean isStill(Path path) throws IOException {
        return equals(of(path));
    }
}
