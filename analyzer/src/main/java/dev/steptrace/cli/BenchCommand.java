package dev.steptrace.cli;

import dev.steptrace.bench.IngestBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure ingest throughput on traces beside a bare tokenizer pass (the ceiling).",
                "Prints MB/s of uncompressed JSON per wall and per CPU second, events/s and peak RSS, and times "
                        + "the analysis that ingest runs after the load against the load's time. Nsight Systems exports "
                        + "(measured apart from Kineto traces): rows/s and kernel rows/s beside a bare scan of the kernel "
                        + "tables. Run with the heap capped to show that ingest streams, e.g.",
                "  STEPTRACE_JAVA_OPTS=-Xmx768m ./steptrace bench <dir>"})
public final class BenchCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Trace files or directories.")
    List<Path> paths;

    @Option(names = "--threads", paramLabel = "N", description = "Threads for the parallel pass (default: all cores).")
    Integer threads;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "1",
            description = "Rounds (the first warms up the JIT on small inputs; default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = ".",
            description = "Where the temporary stores go (default: the working directory).")
    Path workDir;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        IngestCommand.atLeastOne(spec.commandLine(), "--threads", threads);
        IngestCommand.atLeastOne(spec.commandLine(), "--repeat", repeat);
        // Said before the passes that need no store have run, not after.
        if (!Files.isDirectory(workDir)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--work-dir " + workDir + ": "
                    + (Files.exists(workDir) ? "not a directory" : "no such directory"));
        }
        int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        new IngestBenchmark(spec.commandLine().getOut()).run(paths, n, repeat, workDir);
        return Main.OK;
    }
}
