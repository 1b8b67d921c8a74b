package dev.steptrace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capture of many ranks written by {@code synth} (one layer of the model, two decode steps: small ranks; rank
 * 1's clock 250 µs ahead, which the clock_offset rule reports),
 * analysed by the Spark application in local mode in 4 partitions over {@code local[4]} (the task slots of 4
 * one-core executors) and by the CLI: the same report.json and the same collective matching, and Spark's record
 * of the tasks shows the ranks spread over the 4 tasks. 512 ranks ({@code -Dsteptrace.spark.ranks=N} for
 * another count; docs/performance.md, "Spark", says what the run costs).
 */
class SparkOnManyRanksTest {
    /** A multiple of {@link #TASKS}, so that Spark's slices are equal. */
    private static final int RANKS = Integer.getInteger("steptrace.spark.ranks", 512);
    private static final int STEPS = 2;
    private static final int LAYERS = 1;
    private static final int TASKS = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static SparkSession spark;
    private static SparkAnalysis.Result result;
    private static Path capture;
    private static Path out;
    private static Path db;

    @BeforeAll
    static void synthesiseAndAnalyseOnSparkAndWithTheCli() throws Exception {
        capture = tmp.resolve("ranks");
        PrintStream stdout = System.out;
        // synth prints every path it writes: a line per rank the test log does not need.
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));
        try {
            assertEquals(0, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", String.valueOf(RANKS), "--steps",
                    String.valueOf(STEPS), "--prefill-steps", "0", "--layers", String.valueOf(LAYERS), "--clock-offset",
                    "1=250us", "--out", capture.toString(), "--quiet"));
        } finally {
            System.setOut(stdout);
        }
        spark = SparkTests.localSession(TASKS);
        out = tmp.resolve("dataset");
        // The traces, not EXPECTED.json beside them, so that the 4 partitions are equal; the cross-rank stage on
        // Spark SQL whatever the input's size (SparkOnSampleCapturesTest has DuckDB on the driver run it).
        long start = System.nanoTime();
        result = SparkAnalysis.analyse(spark, List.of(capture.resolve("*.pt.trace.json.gz").toString()), out.toString(), TASKS,
                0);
        double sparkSeconds = (System.nanoTime() - start) / 1e9;

        db = tmp.resolve("cli.duckdb");
        start = System.nanoTime();
        assertEquals(0, Main.run("report", capture.toString(), "--db", db.toString(), "--out",
                tmp.resolve("report").toString(), "--format", "json", "--no-timeline", "--quiet"));
        // Where the test's time goes, in the test log (docs/performance.md quotes it).
        double[] stages = result.stageSeconds();
        double[] cpu = result.stageCpuSeconds();
        System.err.printf(Locale.ROOT, "SparkOnManyRanksTest: %d ranks: Spark %.1f s (rank-local %.1f, cross-rank %.1f,"
                + " reports %.1f; CPU %.1f, %.1f, %.1f s), CLI report %.1f s%n", RANKS, sparkSeconds, stages[0], stages[1],
                stages[2], cpu[0], cpu[1], cpu[2], (System.nanoTime() - start) / 1e9);
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    @Test
    void theFourTasksShareTheRanks() throws Exception {
        assertEquals(RANKS, result.files().stream().filter(TaskOutcome::loaded).count());
        List<TaskRun> tasks = result.tasks().stream().filter(TaskRun::successful).toList();
        assertEquals(List.of(0, 1, 2, 3), tasks.stream().map(TaskRun::partition).toList(), tasks.toString());
        // Spark slices a list into equal ranges: each task was given a quarter of the ranks, none all of them.
        for (TaskRun t : tasks) {
            assertEquals(RANKS / TASKS, t.traces(), t.toString());
            assertTrue(t.runSeconds() > 0, t.toString());
        }
        // Each partition analysed the traces it was given: a quarter of the ranks each, every rank once.
        Map<Integer, List<Integer>> ranksByPartition = new TreeMap<>(result.files().stream().collect(
                Collectors.groupingBy(TaskOutcome::partition, Collectors.mapping(TaskOutcome::rank, Collectors.toList()))));
        assertEquals(List.of(0, 1, 2, 3), List.copyOf(ranksByPartition.keySet()));
        ranksByPartition.values().forEach(r -> assertEquals(RANKS / TASKS, r.size()));
        assertEquals(RANKS, result.files().stream().map(TaskOutcome::rank).distinct().count());
        // What users see: tasks.json beside the dataset, one entry per task attempt.
        JsonNode written = JSON.readTree(out.resolve(SparkAnalysis.TASKS_JSON).toFile()).get("tasks");
        assertEquals(result.tasks().size(), written.size());
        List<Long> traces = new ArrayList<>();
        written.forEach(t -> traces.add(t.get("traces").asLong()));
        assertEquals(result.tasks().stream().map(TaskRun::traces).toList(), traces);
    }

    @Test
    void theReportJsonEqualsTheClis() throws Exception {
        JsonNode cli = JSON.readTree(tmp.resolve("report").resolve("report.json").toFile());
        JsonNode onSpark = JSON.readTree(out.resolve("reports").resolve("ranks").resolve("report.json").toFile());
        assertEquals(RANKS, onSpark.at("/capture/ranks").size(), "ranks of the capture");
        // The warnings are compared with the rest; rank 1's clock is off by more than the rule's 100 µs.
        assertEquals(List.of("clock_offset"), ReportTrees.warningCodes(cli));
        List<String> differences = new ArrayList<>();
        ReportTrees.compare(cli, onSpark, "", differences);
        assertEquals(List.of(), differences);
    }

    @Test
    void collectivesMatchInstanceByInstance() throws Exception {
        List<String> cli = SparkTests.cliInstances(db);
        // The model's all-reduces per decode step: 2 per layer and 5 outside the layers (docs/synth.md).
        assertEquals(RANKS * STEPS * (2 * LAYERS + 5), cli.size());
        assertEquals(cli, SparkTests.sparkInstances(spark, out));
        assertEquals(SparkTests.cliArrivals(db), SparkTests.sparkArrivals(spark, out));
    }
}
