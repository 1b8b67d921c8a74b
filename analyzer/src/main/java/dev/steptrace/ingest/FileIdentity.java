package dev.steptrace.ingest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Which files a trace is, and the size and last change of each: another identity after a load means a file
 * was replaced (a copy renamed over it, as rsync does), written to, added or removed while it was read, so
 * the rows read and the fingerprint stored need not describe one and the same content. The files are those
 * the fingerprint covers ({@link Importer#parts}): an nsys Parquet export's tables, not its directory, whose
 * own size and time stay the same when a table is rewritten in place.
 *
 * @param parts each file of the trace, in the importer's order
 */
record FileIdentity(List<Part> parts) {
    /** @param fileKey the file system's key of the file (device and inode on Linux), or null where it has none */
    record Part(Path path, Object fileKey, long size, FileTime modified) {}

    static FileIdentity of(TraceDiscovery.Found trace) throws IOException {
        List<Part> parts = new ArrayList<>();
        for (Path p : trace.importer().parts(trace.path())) {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            parts.add(new Part(p, a.fileKey(), a.size(), a.lastModifiedTime()));
        }
        return new FileIdentity(parts);
    }

    /** Whether {@code trace} is still these files, unchanged. */
    boolean isStill(TraceDiscovery.Found trace) throws IOException {
        return equals(of(trace));
    }
}
