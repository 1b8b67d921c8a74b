package dev.steptrace.cli;

import dev.steptrace.classify.Taxonomy;
import dev.steptrace.report.ReportCharts;
import java.util.Set;

/**
 * Reads what a command over a capture needs (the built-in kernel rules, about 0.15 s; Java2D and its
 * fonts, for the charts) on a daemon thread, while the main one parses the command line, opens the
 * store and checks the files. The main thread finds them initialized, or waits for the class
 * initialization under way. DuckDB's native library is left to the main thread: when it is missing,
 * its own error names the path it looked in.
 */
final class Warmup {
    private static final Set<String> ANALYSIS_COMMANDS = Set.of("report", "diff", "decide");

    private Warmup() {}

    static void startFor(String[] args) {
        if (args.length == 0 || !ANALYSIS_COMMANDS.contains(args[0])) {
            return;
        }
        Thread t = new Thread(() -> {
            try {
                Taxonomy.builtIn();
                ReportCharts.unavailableReason();
            } catch (RuntimeException | LinkageError e) {
                // the main thread meets the same failure (the rules are built in; charts say why not)
            }
        }, "steptrace-warmup");
        t.setDaemon(true);
        t.start();
    }
}
