package dev.steptrace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input in the Spark application, as the CLI's bad-input corpus has it: a FIFO among the traces is passed
 * over unopened (copying it would wait for ever), and two traces of one rank in one capture directory are
 * refused in one line naming both (not a raw DuckDB error from the task's store, nor two rank 0s in the dataset).
 * The trace is the corpus's {@code base.json}: rank 0 of 2, one step.
 */
class SparkBadInputTest {
    @TempDir
    static Path tmp;

    private static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkTests.localSession(2);
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    @Test
    void aFifoIsSkippedUnopenedAndTheTraceBesideItAnalysed() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("fifo").resolve("capture"));
        Files.copy(baseJson(), dir.resolve("rank0.pt.trace.json"));
        Path fifo = dir.resolve("rank1.pt.trace.json");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        SparkAnalysis.Result r = assertTimeoutPreemptively(Duration.ofMinutes(3), () -> SparkAnalysis.analyse(spark,
                List.of(dir.toString()), tmp.resolve("fifo").resolve("out").toString(), 2, 0));
        Map<String, TaskOutcome> byName = r.files().stream().collect(Collectors.toMap(
                o -> Path.of(o.trace().replaceFirst("^file:", "")).getFileName().toString(), o -> o));
        assertEquals("skipped", byName.get("rank1.pt.trace.json").status());
        assertEquals("not a regular file (a FIFO)", byName.get("rank1.pt.trace.json").reason());
        assertTrue(byName.get("rank0.pt.trace.json").loaded(), byName.toString());
        assertEquals(0, byName.get("rank0.pt.trace.json").rank());
        assertEquals(java.util.Set.of("capture"), r.captures());
    }

    @Test
    void twoTracesOfOneRankInOneCaptureAreRefusedNamingBoth() throws Exception {
        // One task holding both (its store would make them two captures of one name), and two tasks.
        for (int partitions : new int[] {1, 2}) {
            Path root = tmp.resolve("twice-" + partitions);
            Path dir = Files.createDirectories(root.resolve("capture"));
            Files.copy(baseJson(), dir.resolve("a.pt.trace.json"));
            // Not a copy (ingest would take a byte-identical file for one): another step number.
            Files.writeString(dir.resolve("b.pt.trace.json"), Files.readString(baseJson()).replace("ProfilerStep#2",
                    "ProfilerStep#3"));
            TraceInputs.InputException e = assertThrows(TraceInputs.InputException.class, () -> SparkAnalysis.analyse(
                    spark, List.of(dir.toString()), root.resolve("out").toString(), partitions, 0));
            assertTrue(e.getMessage().startsWith("capture capture: ") && e.getMessage().contains("a.pt.trace.json and ")
                    && e.getMessage().contains("b.pt.trace.json are both rank 0"), e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        }
    }

    private static Path baseJson() {
        return SparkTests.sampleTraces().getParent().resolve("analyzer/src/test/resources/bad-input/base.json");
    }
}
