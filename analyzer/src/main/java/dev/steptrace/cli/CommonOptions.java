package dev.steptrace.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options every command that touches the store takes. */
public final class CommonOptions {
    @Option(names = "--db", paramLabel = "FILE",
            description = "The store (default: $STEPTRACE_DB, else steptrace.duckdb in the working directory).")
    Path db;

    @Option(names = {"-q", "--quiet"}, description = "No progress on stderr.")
    boolean quiet;

    @Option(names = "--debug", description = "Print stack traces of failures.")
    boolean debug;
}
