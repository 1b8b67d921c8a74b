package dev.steptrace.ingest;

import dev.steptrace.store.StoreFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The files the store holds in the directories of an ingest's traces, other than theirs: what a trace of the
 * ingest may be a copy of, or renamed from ({@code Ingestor}).
 *
 * @param onDisk those still on disk with their stored size: a trace of this ingest with the same content is a
 *               copy of one of them, as it would be if both were ingested together
 * @param gone   those no longer on disk: one with a trace's very bytes was renamed to it
 */
record StoredNeighbours(List<DirectoryCopies.Candidate> onDisk, List<StoreFiles.Row> gone) {
    static StoredNeighbours of(Connection c, List<TraceDiscovery.Found> traces) throws SQLException {
        Set<Path> given = new HashSet<>();
        Set<Path> dirs = new TreeSet<>();
        for (TraceDiscovery.Found f : traces) {
            given.add(f.path());
            dirs.add(f.dir());
        }
        List<DirectoryCopies.Candidate> onDisk = new ArrayList<>();
        List<StoreFiles.Row> gone = new ArrayList<>();
        for (Path dir : dirs) {
            for (StoreFiles.Row r : StoreFiles.in(c, dir)) {
                if (given.contains(r.path())) {
                    continue;
                }
                if (Files.notExists(r.path(), LinkOption.NOFOLLOW_LINKS)) {
                    gone.add(r);
                    continue;
                }
                Importer importer = Importers.of(r.format());
                boolean sameContentGzipped = Importers.can(r.format(), Importer.Capability.CONTENT_FINGERPRINT);
                try {
                    if (importer == null || sizeOf(importer.parts(r.path())) != r.size()) {
                        continue;
                    }
                    onDisk.add(DirectoryCopies.Candidate.stored(r.path(), sameContentGzipped, r.compressed(),
                            new Fingerprint(r.size(), r.contentHash()),
                            sameContentGzipped && r.compressed() ? Fingerprint.gzipContent(r.path()) : null));
                } catch (IOException e) {
                    // Not readable now: nothing to compare with.
                }
            }
        }
        return new StoredNeighbours(onDisk, gone);
    }

    /** The bytes of a trace's parts together, as its fingerprint counts them. */
    private static long sizeOf(List<Path> parts) throws IOException {
        long size = 0;
        for (Path p : parts) {
            size += Files.size(p);
        }
        return size;
    }
}
