package dev.steptrace.ingest;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;

/**
 * One trace format: how its files are recognised and how one is read into the store. The importers
 * are listed in {@link Importers}; a new format is one package holding its importer plus one line
 * there (docs/architecture.md, "Adding a format").
 *
 * <p>An importer writes through the {@link RowSink} of its {@link ImportJob} and returns what the
 * {@code files} row needs ({@link FileSummary}); {@link Ingestor} does the rest (transaction,
 * fingerprint, rank fallback, the {@code files} row).
 */
public interface Importer {
    /** The profiler the formats come from, whatever the container ("kineto", "nsys"): traces of one run share it. */
    String family();

    /** The format ids it claims files with (what {@code files.format} stores). */
    List<String> formats();

    /**
     * What the ingest may do with this importer's traces beyond reading them, and what the analysis may
     * assume of their rows: the generic code asks these, never a format's name.
     */
    enum Capability {
        /**
         * A trace is the same content plain or gzipped: a gzip file's trailer gives its content's
         * fingerprint, so a gunzipped copy beside it is a copy, and a plain file gzipped in place is the
         * stored one ({@link DirectoryCopies}, {@link IngestPlanner}).
         */
        CONTENT_FINGERPRINT,
        /**
         * It takes the trace's fingerprint from the bytes it reads ({@link ImportJob#digest}), so a file that
         * can be neither unchanged nor a copy is read once.
         */
        FINGERPRINT_WHILE_READING,
        /** Its traces hold python_function events, which it keeps only with {@code --keep-python-functions}. */
        PYTHON_FUNCTIONS,
        /**
         * A kernel row it writes with a graph id and no graph node id is a whole CUDA graph replay, not one of
         * the graph's kernels (Nsight Systems' {@code --cuda-graph-trace=graph}).
         */
        WHOLE_GRAPH_ROWS
    }

    /** Its {@link Capability capabilities}; none unless it says so. */
    default Set<Capability> capabilities() {
        return Set.of();
    }

    /**
     * What this importer makes of a file from its first bytes and its name: {@link Recognition#claim}
     * (one of its traces), {@link Recognition#refuse} (of its kind but not readable, with the reason),
     * or null (not of its kind).
     */
    Recognition recognize(FileHead file) throws IOException;

    /**
     * A claim when a directory is, as a whole, one trace of this format (an nsys Parquet export); null
     * otherwise (most formats are files).
     */
    default Recognition recognizeDirectory(Path dir) throws IOException {
        return null;
    }

    /**
     * The files whose names and bytes identify a trace (its fingerprint): the file alone, unless the
     * format spreads one trace over several files.
     */
    default List<Path> parts(Path trace) throws IOException {
        return List.of(trace);
    }

    /**
     * Reads one trace into {@code job.sink(...)} inside the caller's open transaction.
     *
     * @throws NotATraceException when the content turns out not to be a trace (the file is skipped)
     */
    FileSummary read(ImportJob job) throws IOException, SQLException;
}
