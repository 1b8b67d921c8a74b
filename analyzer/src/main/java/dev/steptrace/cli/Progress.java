package dev.steptrace.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A one-line progress display on stderr (bytes read, MB/s, events/s, ETA), redrawn twice a second,
 * shown only when stderr is a terminal and --quiet is not given.
 */
final class Progress implements AutoCloseable {
    private final PrintStream err;
    private final String label;
    private final AtomicLong done;
    private final AtomicLong events;
    private final AtomicLong total;
    private final long startNanos = System.nanoTime();
    private final Thread thread;
    private volatile boolean running = true;

    private Progress(PrintStream err, String label, AtomicLong done, AtomicLong total, AtomicLong events) {
        this.err = err;
        this.label = label;
        this.done = done;
        this.total = total;
        this.events = events;
        this.thread = new Thread(this::loop, "steptrace-progress");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Starts a display, or returns null when there is no terminal to show it on.
     *
     * @param total the amount {@code done} counts towards, 0 while unknown (it may be set later)
     */
    static Progress start(boolean quiet, String label, AtomicLong done, AtomicLong total, AtomicLong events) {
        if (quiet || !stderrIsTerminal()) {
            return null;
        }
        return new Progress(System.err, label, done, total, events);
    }

    static boolean stderrIsTerminal() {
        return isTerminal(2);
    }

    static boolean stdoutIsTerminal() {
        return isTerminal(1);
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
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            if (running) {
                err.print("\r" + line() + "\u001b[K");
                err.flush();
            }
        }
    }

    String line() {
        double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
        long bytes = done.get();
        long total = this.total.get();
        double rate = bytes / seconds;
        StringBuilder sb = new StringBuilder(label).append(": ").append(Bytes.format(bytes));
        if (total > 0) {
            sb.append(" / ").append(Bytes.format(total))
                    .append(String.format(Locale.ROOT, " (%d%%)", Math.min(100, bytes * 100 / total)));
        }
        sb.append(String.format(Locale.ROOT, ", %s/s", Bytes.format((long) rate)));
        if (events != null) {
            sb.append(String.format(Locale.ROOT, ", %.2f M events/s", events.get() / seconds / 1e6));
        }
        if (total > 0 && rate > 0 && bytes < total) {
            long eta = (long) ((total - bytes) / rate);
            sb.append(String.format(Locale.ROOT, ", ETA %d:%02d", eta / 60, eta % 60));
        }
        return sb.toString();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        err.print("\r\u001b[K");
        err.flush();
    }
}
