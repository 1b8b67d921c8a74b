package dev.steptrace.ingest;

import dev.steptrace.common.Messages;
import dev.steptrace.ingest.FileOutcome.Status;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * What an ingest does with each trace found, before any is loaded ({@link Ingestor}): its fingerprint (from the
 * store where the files are as stored, else read, or left to be taken while it loads), whether it is unchanged,
 * a copy of another file of its directory, or a stored file renamed or gzipped in place.
 */
final class IngestPlanner {
    private final Store store;
    private final IngestOptions options;

    IngestPlanner(Store store, IngestOptions options) {
        this.store = store;
        this.options = options;
    }

    List<Planned> plan(List<TraceDiscovery.Found> traces, List<FileOutcome> outcomes)
            throws IOException, SQLException {
        Connection c = store.connection();
        List<Planned> candidates = new ArrayList<>();
        Map<TraceDiscovery.Found, Fingerprint.Content> gzipContents = gzipContents(traces);
        StoredNeighbours neighbours = StoredNeighbours.of(c, traces);
        Map<TraceDiscovery.Found, StoreFiles.Row> stored = new HashMap<>();
        for (TraceDiscovery.Found f : traces) {
            StoreFiles.Row r = StoreFiles.byPath(c, f.path());
            if (r != null) {
                stored.put(f, r);
            }
        }
        List<Fingerprinted> fingerprints = fingerprints(traces, stored,
                fingerprintWhileLoading(c, traces, stored, gzipContents, neighbours));
        for (int i = 0; i < traces.size(); i++) {
            TraceDiscovery.Found f = traces.get(i);
            if (fingerprints.get(i).failure() != null) {
                outcomes.add(FileOutcome.notLoaded(f.path(), Status.FAILED,
                        "cannot read: " + Messages.io(fingerprints.get(i).failure())));
                continue;
            }
            Fingerprint fp = fingerprints.get(i).fingerprint();
            // A file found not to be a trace before, unchanged since: skipped unread (parsing it to the
            // end again, with a reader and its batches set up, costs every report ~0.1 s).
            String notTrace = StoreFiles.nonTraceReason(c, f.path(), fp.size(), fp.contentHash());
            if (notTrace != null) {
                outcomes.add(FileOutcome.notLoaded(f.path(), Status.SKIPPED, notTrace));
                continue;
            }
            Fingerprinted read = fingerprints.get(i);
            candidates.add(new Planned(f, fp, read.identity(), read.stamp(), stored.get(f), options));
        }
        // Files the store holds beside a file of this ingest, gone from disk, with its very bytes: renamed or
        // moved to it (renamedOutcomes). A read-only store keeps every row, as it does for files gone (goneFrom).
        Map<String, List<Path>> gone = new HashMap<>();
        for (StoreFiles.Row r : store.readOnly() ? List.<StoreFiles.Row>of() : neighbours.gone()) {
            gone.computeIfAbsent(r.path().getParent() + "/" + r.contentHash() + "/" + r.size(), k -> new ArrayList<>())
                    .add(r.path());
        }
        for (Planned p : candidates) {
            List<Path> was = p.fingerprint.contentHash() == null ? null
                    : gone.remove(p.found.dir() + "/" + p.fingerprint.contentHash() + "/" + p.fingerprint.size());
            p.replaces = was == null ? List.of() : was;
        }
        // A plain trace gone from disk beside a gzip file of its name and ".gz" whose trailer gives its content
        // (CRC-32 and length): gzipped in place, if the gzip file's events are its own (renamedOutcomes).
        Set<Path> stillGone = new HashSet<>();
        gone.values().forEach(stillGone::addAll);
        Map<Path, Planned> byPath = new HashMap<>();
        candidates.forEach(p -> byPath.put(p.found.path(), p));
        for (StoreFiles.Row r : store.readOnly() ? List.<StoreFiles.Row>of() : neighbours.gone()) {
            Planned gz = byPath.get(r.path().resolveSibling(r.path().getFileName() + ".gz"));
            if (gz != null && stillGone.contains(r.path()) && !r.compressed()
                    && Importers.can(r.format(), Importer.Capability.CONTENT_FINGERPRINT) && gzipContents.containsKey(gz.found)
                    && gzipContents.get(gz.found).equals(new Fingerprint(r.size(), r.contentHash()).content())) {
                gz.gzippedFrom = r;
            }
        }
        // Of several files with the same content in one directory (as stored, or once decompressed: a
        // gunzipped copy left beside its .gz), one that the store already holds keeps it (else the first in
        // path order): loading a copy beside it would count that rank twice, or make it a second run.
        List<Planned> claimOrder = new ArrayList<>(candidates);
        claimOrder.sort(Comparator.comparing((Planned p) -> !p.stored));
        DirectoryCopies directories = new DirectoryCopies();
        neighbours.onDisk().forEach(directories::claim);
        for (Planned p : claimOrder) {
            p.copy = directories.claim(DirectoryCopies.Candidate.of(p.found.path(),
                    p.found.can(Importer.Capability.CONTENT_FINGERPRINT), p.found.compressed(), p.fingerprint,
                    gzipContents.get(p.found)));
        }
        return candidates;
    }

    /** What the trailers of the gzip files (of formats whose content is the same gzipped) say of their content; a file that cannot be read is left out. */
    private static Map<TraceDiscovery.Found, Fingerprint.Content> gzipContents(List<TraceDiscovery.Found> traces) {
        Map<TraceDiscovery.Found, Fingerprint.Content> contents = new HashMap<>();
        for (TraceDiscovery.Found f : traces) {
            if (f.compressed() && f.can(Importer.Capability.CONTENT_FINGERPRINT)) {
                try {
                    Fingerprint.Content c = Fingerprint.gzipContent(f.path());
                    if (c != null) {
                        contents.put(f, c);
                    }
                } catch (IOException e) {
                    // Its fingerprint's read reports it.
                }
            }
        }
        return contents;
    }

    /**
     * A file's fingerprint, or why it could not be read.
     *
     * @param identity the files it was taken from, as they were when their read began; null for none
     * @param stamp    their {@link FileIdentity#stamp}, where it can tell the next change; else null
     */
    private record Fingerprinted(Fingerprint fingerprint, FileIdentity identity, String stamp, IOException failure) {}

    /**
     * The traces whose fingerprint is taken as they are parsed, so they are read once: files of importers that
     * fingerprint while reading that cannot be unchanged (the store has no row for their path with their size), cannot be a copy
     * of another file of their directory (none of the same size, and for a plain file no gzip file whose
     * content is as long) and were not found not to be a trace.
     * The others are fingerprinted first, which is the only read of an unchanged file.
     */
    private Map<TraceDiscovery.Found, Long> fingerprintWhileLoading(Connection c, List<TraceDiscovery.Found> traces,
            Map<TraceDiscovery.Found, StoreFiles.Row> stored,
            Map<TraceDiscovery.Found, Fingerprint.Content> gzipContents, StoredNeighbours neighbours)
            throws SQLException {
        if (store.readOnly()) {
            return Map.of();
        }
        Map<TraceDiscovery.Found, Long> sizes = new HashMap<>();
        Map<String, Integer> ofSize = new HashMap<>();
        for (TraceDiscovery.Found f : traces) {
            if (f.can(Importer.Capability.FINGERPRINT_WHILE_READING)) {
                try {
                    long size = java.nio.file.Files.size(f.path());
                    sizes.put(f, size);
                    ofSize.merge(f.dir() + "/" + size, 1, Integer::sum);
                } catch (IOException e) {
                    // Fingerprinted first: that read reports it.
                }
            }
        }
        // A plain file as long as the content of a gzip file beside it may be its gunzipped copy: its CRC is
        // needed before the load, to tell (see plan).
        Set<String> gzipLengths = new HashSet<>();
        for (Map.Entry<TraceDiscovery.Found, Fingerprint.Content> g : gzipContents.entrySet()) {
            gzipLengths.add(g.getKey().dir() + "/" + g.getValue().lengthMod32());
        }
        // So may a file as long as one the store holds beside it, or as the content of such a gzip file; and a
        // file as long as one the store holds that is gone from disk may be that file renamed.
        for (DirectoryCopies.Candidate n : neighbours.onDisk()) {
            ofSize.merge(n.dir() + "/" + n.size(), 1, Integer::sum);
            if (n.compressed() && n.content() != null) {
                gzipLengths.add(n.dir() + "/" + n.content().lengthMod32());
            }
        }
        for (StoreFiles.Row r : neighbours.gone()) {
            ofSize.merge(r.path().getParent() + "/" + r.size(), 1, Integer::sum);
        }
        Map<TraceDiscovery.Found, Long> deferred = new HashMap<>();
        for (Map.Entry<TraceDiscovery.Found, Long> e : sizes.entrySet()) {
            Path path = e.getKey().path();
            long size = e.getValue();
            StoreFiles.Row previous = stored.get(e.getKey());
            boolean maybeGunzipped = !e.getKey().compressed()
                    && gzipLengths.contains(e.getKey().dir() + "/" + (size & 0xFFFFFFFFL));
            if (ofSize.get(e.getKey().dir() + "/" + size) == 1 && !maybeGunzipped
                    && (previous == null || previous.size() != size) && !StoreFiles.isNonTrace(c, path, size)) {
                deferred.put(e.getKey(), size);
            }
        }
        return deferred;
    }

    /**
     * Every trace's fingerprint, in order, read on the ingest's threads. A file whose identity on disk is the
     * one stored with its content ({@code files.file_stat}) is not read: its stored fingerprint is its own.
     * Else checking an unchanged capture of several GB is all reading and CRCs. Those in {@code whileLoading}
     * get their size alone (no content hash): their fingerprint is taken as they are loaded.
     */
    private List<Fingerprinted> fingerprints(List<TraceDiscovery.Found> traces,
            Map<TraceDiscovery.Found, StoreFiles.Row> stored, Map<TraceDiscovery.Found, Long> whileLoading)
            throws IOException {
        List<Callable<Fingerprinted>> tasks = new ArrayList<>();
        for (TraceDiscovery.Found f : traces) {
            Long size = whileLoading.get(f);
            StoreFiles.Row row = stored.get(f);
            tasks.add(() -> {
                if (size != null) {
                    return new Fingerprinted(new Fingerprint(size, null), null, null, null);
                }
                try {
                    long readFrom = System.currentTimeMillis();
                    FileIdentity before = FileIdentity.of(f);
                    String stamp = before.stamp();
                    if (stamp != null && row != null && stamp.equals(row.fileStat())) {
                        return new Fingerprinted(new Fingerprint(row.size(), row.contentHash()), before, stamp, null);
                    }
                    Fingerprint fp = Fingerprint.of(f);
                    return new Fingerprinted(fp, before, before.stampOfRead(readFrom, FileIdentity.of(f)), null);
                } catch (IOException e) {
                    return new Fingerprinted(null, null, null, e);
                }
            });
        }
        return Ingestor.onThreads(Math.min(options.threads(), traces.size()), tasks);
    }
}
