package dev.steptrace.spark;

import dev.steptrace.common.Messages;
import dev.steptrace.common.OutputFiles;
import dev.steptrace.ingest.Ingestor;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.DoubleSummaryStatistics;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.LongAccumulator;
import org.apache.spark.util.SerializableConfiguration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * steptrace on Spark (docs/spark.md): {@code spark-submit steptrace-spark.jar TRACES... --out DIR}. Tasks of
 * one or more trace files each run the rank-local analysis ({@link RankLocalTask}); the cross-rank stage runs in Spark SQL
 * ({@link CrossRankStage}); both write one Hive-partitioned Parquet dataset, the layout of {@code steptrace
 * export} (docs/export.md). Exit 0 done, 1 no usable trace or a failure, 2 usage error.
 */
@Command(name = "steptrace-spark", mixinStandardHelpOptions = true,
        description = {"Analyse trace files on Spark: tasks of one or more files (steptrace's importers and rank-local",
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
            description = "Tasks to spread the files over, each analysing its files in one store (default: one per "
                    + BYTES_PER_TASK / (1 << 20) + " MB of files as stored, at most one per file and " + TASKS_PER_CORE
                    + " per core of spark.default.parallelism).")
    Integer partitions;

    @Option(names = "--driver-rows", paramLabel = "N", defaultValue = "" + CrossRankStage.DRIVER_ROWS,
            description = "Run the cross-rank stage in DuckDB on the driver when the rank-local rows it reads are at most"
                    + " N (default: ${DEFAULT-VALUE}; 0: always in Spark SQL).")
    long driverRows;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Tasks per core at most by default: enough to even out traces of unequal size, few enough to share each store's cost. */
    static final int TASKS_PER_CORE = 3;
    /**
     * Bytes of trace files (as stored) per task by default: a task's fixed cost (its store, the analysis's
     * statements, the export's COPYs: about a second) stays small beside its traces' load.
     */
    static final long BYTES_PER_TASK = 64L << 20;
    /** Spark's record of the rank-local tasks, beside the dataset's tables. */
    static final String TASKS_JSON = "tasks.json";

    /**
     * What a run did, for the caller (and the tests): every file, the captures, the rank-local tasks, and the
     * wall time of each stage (rank-local, cross-rank, reports) with the CPU time this JVM spent in it (all
     * threads: in local mode the executors' too, on a cluster the driver's alone).
     */
    public record Result(List<TaskOutcome> files, Set<String> captures, List<TaskRun> tasks, double[] stageSeconds,
                         double[] stageCpuSeconds) {}

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
        if (partitions != null && partitions < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--partitions must be at least 1");
        }
        if (driverRows < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--driver-rows must be at least 0");
        }
        SparkSession.Builder builder = SparkSession.builder().appName("steptrace");
        if (master != null) {
            builder.master(master);
        }
        SparkSession spark = builder.getOrCreate();
        long start = System.nanoTime();
        Result result;
        int cores = spark.sparkContext().defaultParallelism();
        try {
            result = analyse(spark, traces, out, partitions, driverRows);
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
        err.println(tasksLine(result.tasks()));
        double[] stages = result.stageSeconds();
        double[] cpu = result.stageCpuSeconds();
        err.println(String.format(Locale.ROOT, "steptrace-spark: %d of %d files analysed (%.1f MB as stored), %d captures,"
                + " in %.1f s on %d cores (rank-local %.1f s, cross-rank %.1f s, reports %.1f s; CPU of this JVM %.1f,"
                + " %.1f, %.1f s); dataset in %s", loaded, result.files().size(), bytes / 1e6, result.captures().size(),
                seconds, cores, stages[0], stages[1], stages[2], cpu[0], cpu[1], cpu[2], out));
        return loaded == 0 ? 1 : 0;
    }

    /**
     * The application's work, with a Spark entry point the caller owns: every trace's rank-local tables, then the
     * cross-rank stage and report.json (with the index) for the captures with at least one file loaded. The
     * caller's {@code file:} paths in Spark use {@link NioLocalFileSystem} from then on.
     *
     * @param partitions tasks to spread the files over, or null for the default ({@link #tasks})
     * @param driverRows rank-local rows up to which the cross-rank stage runs in DuckDB on the driver
     */
    public static Result analyse(SparkSession spark, List<String> traces, String out, Integer partitions,
                                 long driverRows) throws Exception {
        long start = System.nanoTime();
        double cpuStart = cpuSeconds();
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        NioLocalFileSystem.use(jsc.hadoopConfiguration());
        List<TraceRef> refs = TraceInputs.list(jsc.hadoopConfiguration(), traces);
        SerializableConfiguration conf = new SerializableConfiguration(jsc.hadoopConfiguration());
        int cores = jsc.defaultParallelism();
        int tasks = partitions != null ? partitions : tasks(refs, cores);
        LongAccumulator traceCount = jsc.sc().longAccumulator("steptrace.traces");
        String group = "steptrace-rank-local-" + UUID.randomUUID();
        TaskMetricsListener listener = new TaskMetricsListener(group, traceCount.id());
        jsc.sc().addSparkListener(listener);
        List<TaskOutcome> outcomes;
        List<TaskRun> runs;
        try {
            jsc.setJobGroup(group, "steptrace: rank-local analysis of " + refs.size() + " files", false);
            try {
                outcomes = new ArrayList<>(jsc.parallelize(refs, tasks)
                        .mapPartitions(new RankLocalTask(out, conf, traceCount, threadsPerTask(refs, tasks, cores))).collect());
            } finally {
                jsc.clearJobGroup();
            }
            runs = listener.await();
        } finally {
            jsc.sc().removeSparkListener(listener);
        }
        writeTasks(jsc.hadoopConfiguration(), out, runs);
        outcomes.sort(Comparator.comparing(TaskOutcome::trace));
        oneFilePerRank(outcomes);
        Set<String> captures = new TreeSet<>();
        outcomes.stream().filter(TaskOutcome::loaded).forEach(o -> captures.add(o.capture()));
        double[] seconds = {(System.nanoTime() - start) / 1e9, 0, 0};
        double[] cpu = {cpuSeconds() - cpuStart, 0, 0};
        if (!captures.isEmpty()) {
            java.nio.file.Path scratch = Files.createTempDirectory("steptrace-spark");
            try {
                long t = System.nanoTime();
                double c = cpuSeconds();
                CrossRankStage.run(spark, out, captures, scratch, crossRankRows(outcomes), driverRows);
                seconds[1] = (System.nanoTime() - t) / 1e9;
                cpu[1] = cpuSeconds() - c;
                t = System.nanoTime();
                c = cpuSeconds();
                CaptureReports.write(jsc.hadoopConfiguration(), out, captures, scratch);
                seconds[2] = (System.nanoTime() - t) / 1e9;
                cpu[2] = cpuSeconds() - c;
            } finally {
                OutputFiles.deleteTree(scratch);
            }
        }
        return new Result(List.copyOf(outcomes), captures, runs, seconds, cpu);
    }

    /**
     * Refuses a run where two loaded traces are one rank of one capture (two rank-0 files in a directory: the
     * CLI reports such files as captures of their own, ingest's grouping, which a task that sees part of a
     * directory cannot do): one line naming both.
     */
    static void oneFilePerRank(List<TaskOutcome> outcomes) {
        Map<String, String> first = new HashMap<>();
        for (TaskOutcome o : outcomes) {
            if (o.loaded() && o.rank() != null) {
                String other = first.putIfAbsent(o.capture() + "/" + o.rank(), o.trace());
                if (other != null) {
                    throw new TraceInputs.InputException("capture " + Messages.printable(o.capture()) + ": "
                            + Messages.printable(other) + " and " + Messages.printable(o.trace()) + " are both rank "
                            + o.rank() + " (a capture is a directory of one trace per rank): put each run in a directory"
                            + " of its own, or analyse them with steptrace report, which reports such files as captures"
                            + " of their own");
                }
            }
        }
    }

    /**
     * The default number of rank-local tasks: one per {@link #BYTES_PER_TASK} of the files, at most one per file
     * and {@link #TASKS_PER_CORE} per core. Fewer tasks than cores share the idle cores among them
     * ({@link RankLocalTask}'s threads): a small input is one store on all cores, as {@code steptrace ingest} runs it.
     */
    static int tasks(List<TraceRef> refs, int cores) {
        long bytes = refs.stream().mapToLong(TraceRef::bytes).sum();
        long bySize = (bytes + BYTES_PER_TASK - 1) / BYTES_PER_TASK;
        return (int) Math.max(1, Math.min(bySize, Math.min(refs.size(), (long) TASKS_PER_CORE * cores)));
    }

    /**
     * Threads for each rank-local task's ingest and DuckDB: the cores shared among the tasks that hold most of
     * the work, those with at least a quarter of the largest task's bytes ({@link Ingestor#busyFiles}, as
     * {@code steptrace ingest} counts files beside a large one): a task of a large trace beside one of a run's small
     * files gets the cores the small one leaves. Spark slices the files as here: {@code ParallelCollectionRDD}'s
     * ranges of positions {@code [i * n / tasks, (i + 1) * n / tasks)}.
     */
    static int threadsPerTask(List<TraceRef> refs, int tasks, int cores) {
        List<Long> bytes = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            bytes.add(refs.subList((int) ((long) i * refs.size() / tasks), (int) ((long) (i + 1) * refs.size() / tasks))
                    .stream().mapToLong(TraceRef::bytes).sum());
        }
        bytes.sort(Comparator.reverseOrder());
        return Math.max(1, cores / Math.max(1, Ingestor.busyFiles(bytes, tasks)));
    }

    /** The rank-local rows the cross-rank stage reads: those of its input tables the tasks wrote. */
    private static long crossRankRows(List<TaskOutcome> outcomes) {
        return outcomes.stream().flatMap(o -> o.rows().entrySet().stream())
                .filter(e -> CrossRankStage.INPUTS.containsKey(e.getKey())).mapToLong(Map.Entry::getValue).sum();
    }

    /** CPU time of this JVM, all threads (DuckDB's native ones included), in seconds. */
    private static double cpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
    }

    /** {@code --out/tasks.json}: Spark's record of each rank-local task (docs/spark.md, "Tasks"). */
    private static void writeTasks(Configuration conf, String out, List<TaskRun> runs) throws IOException {
        Path file = new Path(out, TASKS_JSON);
        try (OutputStream os = file.getFileSystem(conf).create(file, true)) {
            new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(os, Map.of("tasks", runs));
        }
    }

    /** One line on how the rank-local work was spread: tasks, executors, traces and run time per task. */
    static String tasksLine(List<TaskRun> runs) {
        if (runs.isEmpty()) {
            return "steptrace-spark: no rank-local task was recorded";
        }
        LongSummaryStatistics traces = runs.stream().mapToLong(TaskRun::traces).summaryStatistics();
        DoubleSummaryStatistics run = runs.stream().mapToDouble(TaskRun::runSeconds).summaryStatistics();
        long executors = runs.stream().map(TaskRun::executor).distinct().count();
        return String.format(Locale.ROOT, "steptrace-spark: rank-local stage: %d tasks on %d executor(s), %d-%d traces"
                        + " and %.1f-%.1f s of run time per task (%.1f s in all); per task in %s", runs.size(), executors,
                traces.getMin(), traces.getMax(), run.getMin(), run.getMax(), run.getSum(), TASKS_JSON);
    }
}
