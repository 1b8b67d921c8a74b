package dev.steptrace.cli;

import dev.steptrace.api.AnalysisOptions;
import dev.steptrace.api.Capture;
import dev.steptrace.api.Steptrace;
import dev.steptrace.report.Fmt;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Progress on stderr (amount done, MB/s, events/s, ETA), unless --quiet: on a terminal one line
 * redrawn twice a second; elsewhere (a CI log, a file) a plain line every {@value #PLAIN_EVERY_MS} ms,
 * prefixed like every other line steptrace writes there.
 * When the work reads compressed files, the amount and the rate are of the uncompressed bytes (what
 * the throughput figures are stated in) and the share done and the ETA come from the file bytes read.
 * Work with no measure of its amount (the analysis after an ingest) shows the time it has taken.
 */
final class Progress implements AutoCloseable {
    static final long PLAIN_EVERY_MS = 10_000;
    private static final long REDRAW_MS = 500;

    private final PrintStream err;
    private final boolean terminal;
    private final long everyMs;
    private final String label;
    private final AtomicLong done;
    private final AtomicLong total;
    private final AtomicLong uncompressed;
    private final AtomicLong events;
    private final long startNanos = System.nanoTime();
    private final Thread thread;
    private volatile boolean running = true;

    Progress(PrintStream err, boolean terminal, long everyMs, String label, AtomicLong done, AtomicLong total,
             AtomicLong uncompressed, AtomicLong events) {
        this.err = err;
        this.terminal = terminal;
        this.everyMs = everyMs;
        this.label = label;
        this.done = done;
        this.total = total;
        this.uncompressed = uncompressed;
        this.events = events;
        this.thread = new Thread(this::loop, "steptrace-progress");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Starts a display on stderr, or returns null when quiet.
     *
     * @param done         the amount done (file bytes read), or null to show the time taken only
     * @param total        the amount {@code done} counts towards, 0 while unknown (it may be set later)
     * @param uncompressed the bytes those files hold once decompressed, or null when the same as {@code done}
     * @param events       events read, or null
     */
    static Progress start(boolean quiet, String label, AtomicLong done, AtomicLong total, AtomicLong uncompressed,
                          AtomicLong events) {
        if (quiet) {
            return null;
        }
        boolean terminal = stderrIsTerminal();
        return new Progress(TerminalOutput.progress(), terminal, terminal ? REDRAW_MS : PLAIN_EVERY_MS, label, done, total,
                uncompressed, events);
    }

    /** Starts a display of the time taken so far on stderr, or returns null when quiet. */
    static Progress startTimer(boolean quiet, String label) {
        return start(quiet, label, null, null, null, null);
    }

    /**
     * The capture {@code id} with its analysis (made now unless the store keeps it): a long analysis shows the time
     * it has taken, as the one after an ingest does.
     */
    static Capture analysed(Steptrace st, int id, AnalysisOptions options, boolean quiet) {
        try (Progress p = startTimer(quiet, "analysing the capture")) {
            return st.capture(id, options);
        }
    }

    static boolean stderrIsTerminal() {
        return isTerminal(2);
    }

    private static boolean isTerminal(int fd) {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (Exception e) {
            return System.console() != null;
        }
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(everyMs);
            } catch (InterruptedException e) {
                return;
            }
            if (running) {
                String line = line((System.nanoTime() - startNanos) / 1e9);
                // A log gets whole lines; a terminal one line redrawn in place.
                err.print(terminal ? "\r" + line + "\u001b[K" : "steptrace: " + line + System.lineSeparator());
                err.flush();
            }
        }
    }

    /** The line after {@code seconds} of work. */
    String line(double seconds) {
        if (done == null) {
            return String.format(Locale.ROOT, "%s: %d s", label, (long) seconds);
        }
        seconds = Math.max(1e-3, seconds);
        long bytes = done.get();
        long total = this.total.get();
        long amount = uncompressed != null ? uncompressed.get() : bytes;
        StringBuilder sb = new StringBuilder(label).append(": ").append(Fmt.size(amount));
        if (uncompressed != null) {
            sb.append(" of JSON");
        }
        if (total > 0) {
            sb.append(String.format(Locale.ROOT, " (%d%% of %s", Math.min(100, bytes * 100 / total), Fmt.size(total)))
                    .append(uncompressed != null ? " of files)" : ")");
        }
        sb.append(String.format(Locale.ROOT, ", %s/s", Fmt.size((long) (amount / seconds))));
        if (events != null) {
            sb.append(", ").append(Fmt.millionsPerSec(events.get() / seconds)).append(" M events/s");
        }
        double fileRate = bytes / seconds;
        if (total > 0 && fileRate > 0 && bytes < total) {
            long eta = (long) ((total - bytes) / fileRate);
            sb.append(String.format(Locale.ROOT, ", ETA %d:%02d", eta / 60, eta % 60));
        }
        return sb.toString();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        if (terminal) {
            err.print("\r\u001b[K");
            err.flush();
        }
    }
}
