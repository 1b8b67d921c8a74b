package dev.steptrace.ingest;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

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
