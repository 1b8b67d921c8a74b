package dev.steptrace.cli;

import dev.steptrace.api.SteptraceException;
import dev.steptrace.common.InputException;
import dev.steptrace.common.Messages;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import java.nio.file.FileSystemException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code steptrace <command> [options]}: exit 0 success, 1 no usable input or failure, 2 usage error. */
@Command(name = "steptrace",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Where every millisecond of an LLM inference step goes, from torch.profiler traces.")
public final class Main implements Runnable {
    /**
     * The commands in help order. A command line naming one gets only that one: picocli reflects over
     * every registered command's options up front, and all of them cost a report about 0.1 s.
     */
    private static final Map<String, Supplier<Object>> COMMANDS = commands();
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    /** {@code diff --fail-on}: a phase's verdict matched (docs/diff.md, "In CI"). */
    public static final int VERDICT_MATCHED = 3;

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
        Warmup.startFor(args);
        // Messages and data name files, captures and kernels from traces: nothing in them may drive a terminal.
        try (TerminalOutput terminal = TerminalOutput.install()) {
            return execute(args);
        }
    }

    private static int execute(String... args) {
        CommandLine cli = new CommandLine(new Main());
        Supplier<Object> named = args.length > 0 ? COMMANDS.get(args[0]) : null;
        if (named != null) {
            cli.addSubcommand(args[0], named.get());
        } else {
            COMMANDS.forEach((name, command) -> cli.addSubcommand(name, command.get()));
            cli.addSubcommand("help", new CommandLine.HelpCommand());
        }
        cli.setParameterExceptionHandler((ex, arguments) -> {
            // One line, as for every other failure, with the names a typo was likely meant for; the usage is
            // one --help away.
            ex.getCommandLine().getErr().println("steptrace: " + usageError(ex) + " (see "
                    + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help)");
            return USAGE;
        });
        cli.setExecutionExceptionHandler((thrown, commandLine, parseResult) -> {
            // The API wraps internal failures (database, I/O) in an unchecked exception: report the cause.
            Exception ex = thrown instanceof SteptraceException wrapper && !wrapper.userError()
                    && wrapper.getCause() instanceof Exception cause ? cause : thrown;
            boolean debug = parseResult.hasMatchedOption("--debug")
                    || parseResult.subcommands().stream().anyMatch(s -> s.hasMatchedOption("--debug"));
            if (debug) {
                ex.printStackTrace(commandLine.getErr());
            }
            // An InputException is the whole story (e.g. a missing path): no stack trace worth pointing at. So is
            // a fault of the machine (a full disk, a directory that refuses writing): the message says it.
            if (Messages.heapExhausted(thrown) != null) {
                commandLine.getErr().println("steptrace: " + Messages.outOfHeap(""));
                return FAILED;
            }
            String outOfStoreMemory = Store.outOfMemory(thrown);
            if (outOfStoreMemory != null) {
                commandLine.getErr().println("steptrace: " + outOfStoreMemory);
                return FAILED;
            }
            if (Messages.environmentFault(thrown)) {
                commandLine.getErr().println("steptrace: " + (thrown instanceof FileSystemException f
                        ? f.getFile() + ": " + Messages.io(f) : Messages.firstLine(thrown.getMessage())));
                return FAILED;
            }
            commandLine.getErr().println("steptrace: " + describe(ex)
                    + (debug || userError(ex) ? "" : " (--debug shows the stack trace)"));
            return FAILED;
        });
        try {
            return cli.execute(args);
        } catch (OutOfMemoryError e) {
            // picocli hands only Exceptions to the handler above: the heap running out on this thread comes here.
            if (Messages.heapExhausted(e) == null) {
                throw e;
            }
            cli.getErr().println("steptrace: " + Messages.outOfHeap(""));
            return FAILED;
        }
    }

    private static Map<String, Supplier<Object>> commands() {
        Map<String, Supplier<Object>> m = new LinkedHashMap<>();
        m.put("ingest", IngestCommand::new);
        m.put("report", ReportCommand::new);
        m.put("diff", DiffCommand::new);
        m.put("decide", DecideCommand::new);
        m.put("timeline", TimelineCommand::new);
        m.put("whatif", WhatIfCommand::new);
        m.put("query", QueryCommand::new);
        m.put("export", ExportCommand::new);
        m.put("spark", SparkCommand::new);
        m.put("taxonomy", TaxonomyCommand::new);
        m.put("synth", SynthCommand::new);
        m.put("bench", BenchCommand::new);
        return m;
    }

    /** A usage error's message, and for an unknown command or option the names it was likely meant for. */
    static String usageError(CommandLine.ParameterException ex) {
        if (!(ex instanceof CommandLine.UnmatchedArgumentException unmatched)) {
            return ex.getMessage();
        }
        List<String> unknown = unmatched.getUnmatched();
        boolean command = !unknown.isEmpty() && !unknown.get(0).startsWith("-")
                && ex.getCommandLine().getCommandSpec().userObject() instanceof Main;
        String message = command ? "unknown command '" + unknown.get(0) + "'" : ex.getMessage();
        List<String> suggestions = unknown.isEmpty() ? List.of()
                : Suggestions.forArgument(ex.getCommandLine().getCommandSpec(), unknown.get(0));
        return suggestions.isEmpty() ? message : message + "; did you mean " + String.join(" or ", suggestions) + "?";
    }

    /** A failure the user can act on: its message is the whole story, no stack trace worth pointing at. */
    private static boolean userError(Throwable ex) {
        return ex instanceof InputException || ex instanceof StoreException || ex instanceof SteptraceException e && e.userError();
    }

    private static String describe(Throwable ex) {
        if (userError(ex)) {
            return ex.getMessage();
        }
        String msg = Messages.firstLine(ex.getMessage());
        return "internal error: " + ex.getClass().getSimpleName() + (msg.isEmpty() ? "" : ": " + msg);
    }
}
