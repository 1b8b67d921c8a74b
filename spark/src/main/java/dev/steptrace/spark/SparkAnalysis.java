package dev.steptrace.spark;

import dev.steptrace.common.Messages;
import dev.steptrace.common.OutputFiles;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.SerializableConfiguration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * steptrace on Spark (docs/spark.md): {@code spark-submit steptrace-spark.jar TRACES... --out DIR}. One task
 * per trace file runs the rank-local analysis ({@link RankLocalTask}); the cross-rank stage runs in Spark SQL
 * ({@link CrossRankStage}); both write one Hive-partitioned Parquet dataset, the layout of {@code steptrace
 * export} (docs/export.md). Exit 0 done, 1 no usable trace or a failure, 2 usage error.
 */
@Command(name = "steptrace-spark", mixinStandardHelpOptions = true,
        description = {"Analyse trace files on Spark: one task per file (steptrace's importers and rank-local",
                "analysis), the cross-rank stage in Spark SQL, all written as one Parquet dataset (docs/spark.md)."})
public final class SparkAnalysis implements Callable<Integer> {
    @Parameters(paramLabel = "TRACES", arity = "1..*",
            description = "Trace files, directories or globs on any Hadoop file system (file:, hdfs:, s3a:...).")
    List<String> traces;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "The dataset's directory (any Hadoop file system).")
    String out;

    @Option(names = "--master", paramLabel = "URL",
            description = "Spark master, e.g. local[*] (default: what spark-submit or spark.master says).")
    String master;

    @Option(names = "--partitions", paramLabel = "N",
            description = "Tasks to spread the files over (default: one per file).")
    Integer partitions;

    /** What a run did, for the caller (and the tests). */
    public record Result(List<TaskOutcome> files, Set<String> captures) {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs one command line and returns its exit code. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new SparkAnalysis());
        cli.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("steptrace-spark: " + ex.getMessage() + " (see --help)");
            return 2;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            commandLine.getErr().println("steptrace-spark: " + (ex instanceof TraceInputs.InputException
                    ? ex.getMessage() : "failed: " + Messages.firstLine(String.valueOf(ex.getMessage()))));
            return 1;
        });
        return cli.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        SparkSession.Builder builder = SparkSession.builder().appName("steptrace");
        if (master != null) {
            builder.master(master);
        }
        SparkSession spark = builder.getOrCreate();
        long start = System.nanoTime();
        Result result;
        int cores = spark.sparkContext().defaultParallelism();
        try {
            result = analyse(spark, traces, out, partitions);
        } finally {
            spark.stop();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        PrintStream err = System.err;
        for (TaskOutcome f : result.files()) {
            if (!f.loaded() || f.reason() != null) {
                err.println("steptrace-spark: " + Messages.printable(f.trace()) + ": " + f.status()
                        + (f.reason() == null ? "" : " (" + Messages.printable(f.reason()) + ")"));
            }
        }
        long loaded = result.files().stream().filter(TaskOutcome::loaded).count();
        long bytes = result.files().stream().mapToLong(TaskOutcome::bytes).sum();
        err.println(String.format("steptrace-spark: %d of %d files analysed (%.1f MB as stored), %d captures, in %.1f s"
                + " on %d cores; dataset in %s", loaded, result.files().size(), bytes / 1e6, result.captures().size(),
                seconds, cores, out));
        return loaded == 0 ? 1 : 0;
    }

    /**
     * The application's work, on a session the caller owns: every trace's rank-local tables, then the
     * cross-rank stage and report.json (with the index) for the captures with at least one file loaded.
     *
     * @param partitions tasks to spread the files over, or null for one per file
     */
    public static Result analyse(SparkSession spark, List<String> traces, String out, Integer partitions) throws Exception {
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        List<TraceRef> refs = TraceInputs.list(jsc.hadoopConfiguration(), traces);
        SerializableConfiguration conf = new SerializableConfiguration(jsc.hadoopConfiguration());
        List<TaskOutcome> outcomes = new ArrayList<>(jsc.parallelize(refs, partitions != null ? partitions : Math.max(1, refs.size()))
                .map(new RankLocalTask(out, conf)).collect());
        outcomes.sort(Comparator.comparing(TaskOutcome::trace));
        Set<String> captures = new TreeSet<>();
        outcomes.stream().filter(TaskOutcome::loaded).forEach(o -> captures.add(o.capture()));
        if (!captures.isEmpty()) {
            java.nio.file.Path scratch = Files.createTempDirectory("steptrace-spark");
            try {
                CrossRankStage.run(spark, out, captures, scratch);
                CaptureReports.write(jsc.hadoopConfiguration(), out, captures, scratch);
            } finally {
                OutputFiles.deleteTree(scratch);
            }
        }
        return new Result(List.copyOf(outcomes), captures);
    }
}
