package dev.steptrace.cli;

import dev.steptrace.classify.Taxonomy;
import java.util.Set;

/**
 * Reads what a command over a capture needs first (the built-in kernel rules, about 0.15 s; DuckDB's
 * native library) on a daemon thread, while picocli builds and parses the command line on the main one.
 * The main thread takes them from the same class-initialization holders, waiting if they are not done.
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
                Class.forName("org.duckdb.DuckDBNative");
            } catch (ClassNotFoundException | RuntimeException | LinkageError e) {
                // the main thread meets the same failure where it has a message for it
            }
        }, "steptrace-warmup");
        t.setDaemon(true);
        t.start();
    }
}
