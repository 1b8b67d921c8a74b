package dev.steptrace.api;

import dev.steptrace.ingest.FileOutcome;
import dev.steptrace.ingest.IngestReport;
import java.io.PrintStream;

/**
 * Watches an ingest: told when it starts (with counters for a progress display) and when it has
 * finished (with the outcome of every file). The command line draws its progress line and prints
 * skipped and partial files through one of these; {@link #NONE} is silent.
 */
public interface IngestListener {
    /** Shows nothing. */
    IngestListener NONE = new IngestListener() {};

    /**
     * The ingest is starting.
     *
     * @param progress counters the ingest keeps up to date while it runs
     * @return something to close when the ingest ends (a progress display), or null
     */
    default AutoCloseable started(IngestProgress progress) {
        return null;
    }

    /**
     * The ingest has finished, before the captures it loaded are looked up.
     *
     * @param report every file's outcome and the ingest's warnings
     */
    default void finished(IngestReport report) {}

    /**
     * A listener that prints each file that was skipped or only partly read, and each warning, one
     * line each, as the command line does ({@code steptrace: partial: FILE: REASON}).
     *
     * @param out where to print (e.g. {@code System.err})
     * @return the listener
     */
    static IngestListener printingProblems(PrintStream out) {
        return new IngestListener() {
            @Override
            public void finished(IngestReport report) {
                for (FileOutcome f : report.files()) {
                    if (f.reason() != null) {
                        out.println("steptrace: " + f.status().id() + ": " + f.path() + ": " + f.reason());
                    }
                }
                report.warnings().forEach(w -> out.println("steptrace: warning: " + w));
                out.flush();
            }
        };
    }
}
