package dev.steptrace.ingest;

import dev.steptrace.store.StoreFiles;
import java.nio.file.Path;
import java.util.List;

/** One file of an ingest to load or skip, as {@link IngestPlanner} found it, with what the store holds for its path. */
final class Planned {
    final TraceDiscovery.Found found;
    final Fingerprint fingerprint;
    /** The files its fingerprint was read from (or told from by their stamp); null for one taken while loading. */
    final FileIdentity fingerprinted;
    /** Their stamp, where it can tell the next change; else null. */
    final String stamp;
    final StoreFiles.Row previous;
    /** The store holds this file's content for its path. */
    final boolean stored;
    /** ... and as these options would load it: the file is skipped. */
    final boolean unchanged;
    /** The file of its directory whose content it holds, found while planning; null for none. */
    DirectoryCopies.Copy copy;
    /** The stored files gone from disk that it was renamed from (the same bytes). */
    List<Path> replaces = List.of();
    /** The stored plain file gone from disk that this gzip file is, gzipped in place; null for none. */
    StoreFiles.Row gzippedFrom;

    Planned(TraceDiscovery.Found found, Fingerprint fingerprint, FileIdentity fingerprinted, String stamp,
            StoreFiles.Row previous, IngestOptions options) {
        this.found = found;
        this.fingerprint = fingerprint;
        this.fingerprinted = fingerprinted;
        this.stamp = stamp;
        this.previous = previous;
        this.stored = previous != null && previous.size() == fingerprint.size()
                && previous.contentHash().equals(fingerprint.contentHash());
        // A file loaded without its python_function events is loaded again when they are asked for; one
        // loaded with them serves an ingest that would drop them (no analysis reads them).
        this.unchanged = stored && (!options.keepPythonFunctions() || previous.pythonFunctions()
                || !Importers.can(previous.format(), Importer.Capability.PYTHON_FUNCTIONS));
    }
}
