package dev.steptrace.cli;

import dev.steptrace.common.Messages;
import dev.steptrace.store.StoreException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code steptrace <command> [options]}: exit 0 success, 1 no usable input or failure, 2 usage error. */
@Command(name = "steptrace",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Where every millisecond of an LLM inference step goes, from torch.profiler traces.",
        subcommands = {IngestCommand.class, ReportCommand.class, DiffCommand.class, QueryCommand.class, TaxonomyCommand.class,
                SynthCommand.class, BenchCommand.class,
                DecideCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs one command line and returns its exit code (used by tests too). */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            boolean debug = parseResult.hasMatchedOption("--debug")
                    || parseResult.subcommands().stream().anyMatch(s -> s.hasMatchedOption("--debug"));
            if (debug) {
                ex.printStackTrace(commandLine.getErr());
            }
            // A UserError is the whole story (e.g. a missing path): no stack trace worth pointing at.
            commandLine.getErr().println("steptrace: " + describe(ex)
                    + (debug || ex instanceof UserError ? "" : " (--debug shows the stack trace)"));
            return FAILED;
        });
        return cli.execute(args);
    }

    private static String describe(Throwable ex) {
        if (ex instanceof UserError || ex instanceof StoreException) {
            return ex.getMessage();
        }
        String msg = Messages.firstLine(ex.getMessage());
        return "internal error: " + ex.getClass().getSimpleName() + (msg.isEmpty() ? "" : ": " + msg);
    }
}
