package dev.steptrace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.analysis.ViewScript;
import dev.steptrace.cli.Main;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark application in local mode on the three sample captures and a damaged copy of one, against the CLI
 * on the same traces: report.json's category figures and warnings, the collective matching instance by
 * instance, the arrivals, and the fleet queries of docs/spark.md run on Spark against the same questions
 * asked of the CLI's store.
 */
class SparkOnSampleCapturesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> CAPTURES = List.of("h200-tp2-moe-decode/graph-nccl-ll",
            "h200-tp2-moe-decode/graph-nccl-simple", "h200-tp2-moe-eager/batch16-prefill256");
    /** graph-nccl-ll with rank 1's file cut to half its bytes: a capture with capture-quality warnings. */
    private static final String CUT = "graph-nccl-ll-cut";

    @TempDir
    static Path tmp;

    private static SparkSession spark;
    private static SparkAnalysis.Result result;
    private static Path out;
    private static Path db;
    private static final Map<String, JsonNode> REPORTS = new TreeMap<>();

    @BeforeAll
    static void analyseOnSparkAndWithTheCli() throws Exception {
        Path samples = SparkTests.sampleTraces();
        Path cut = Files.createDirectories(tmp.resolve("inputs").resolve(CUT));
        try (Stream<Path> traces = Files.list(samples.resolve(CAPTURES.get(0)))) {
            for (Path t : traces.filter(p -> p.getFileName().toString().endsWith(".pt.trace.json.gz")).toList()) {
                Path copy = Files.copy(t, cut.resolve(t.getFileName()));
                if (copy.getFileName().toString().startsWith("rank1.")) {
                    try (FileChannel f = FileChannel.open(copy, StandardOpenOption.WRITE)) {
                        f.truncate(f.size() / 2);
                    }
                }
            }
        }
        spark = SparkTests.localSession(2);
        out = tmp.resolve("dataset");
        result = SparkAnalysis.analyse(spark, List.of(samples.toString(), cut.toString()), out.toString(), null,
                CrossRankStage.DRIVER_ROWS);

        db = tmp.resolve("cli.duckdb");
        List<Path> inputs = new ArrayList<>(CAPTURES.stream().map(samples::resolve).toList());
        inputs.add(cut);
        for (Path capture : inputs) {
            Path reportDir = tmp.resolve("reports").resolve(capture.getFileName());
            assertEquals(0, Main.run("report", capture.toString(), "--db", db.toString(), "--out",
                    reportDir.toString(), "--format", "json", "--no-timeline", "--quiet"), capture.toString());
            REPORTS.put(capture.getFileName().toString(), JSON.readTree(reportDir.resolve("report.json").toFile()));
        }
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    @Test
    void everyTraceIsAnalysedOnce() {
        assertEquals(8, result.files().stream().filter(TaskOutcome::loaded).count(), result.files().toString());
        assertEquals(REPORTS.keySet(), result.captures());
        for (TaskOutcome f : result.files()) {
            if (f.loaded()) {
                assertTrue(f.rows().get("gpu_ops") > 0, f.toString());
            }
        }
        // files.path names each trace where it lives, not the task's scratch copy.
        List<String> paths = sparkRows("SELECT path FROM parquet.`" + out.resolve("files") + "` ORDER BY path");
        assertEquals(result.files().stream().filter(TaskOutcome::loaded).map(TaskOutcome::trace).sorted().toList(), paths);
    }

    @Test
    void categoryFiguresEqualTheClisReport() {
        int compared = 0;
        for (Row r : spark.sql("SELECT capture, phase, category, ms_per_step, calls_per_step FROM parquet.`"
                + out.resolve("phase_categories") + "`").collectAsList()) {
            JsonNode category = null;
            for (JsonNode c : REPORTS.get(r.getString(0)).at("/phases/" + r.getString(1) + "/categories")) {
                if (c.get("id").asText().equals(r.getString(2))) {
                    category = c;
                }
            }
            assertTrue(category != null, "report.json has " + r);
            assertClose(category.get("ms_per_step").asDouble(), r.getDouble(3), r + " ms_per_step");
            assertClose(category.get("calls_per_step").asDouble(), r.getDouble(4), r + " calls_per_step");
            compared++;
        }
        int inReports = 0;
        for (JsonNode report : REPORTS.values()) {
            for (JsonNode phase : report.get("phases")) {
                inReports += phase.get("categories").size();
            }
        }
        assertEquals(inReports, compared, "every category of every phase of the three reports");
    }

    @Test
    void theDamagedCapturesWarningsAreTheClis() throws Exception {
        // Rank 1's file is cut: the CLI warns of it (partial_file, read from files; the cut also leaves operations
        // outside every step, ops_outside_steps, read from file_checks). Spark's report gives the same warnings,
        // word for word, their evidence over its own store.
        List<String> cli = ReportTrees.warningCodes(REPORTS.get(CUT));
        assertTrue(cli.contains("partial_file"), cli.toString());
        JsonNode onSpark = JSON.readTree(out.resolve("reports").resolve(CUT).resolve("report.json").toFile());
        List<String> differences = new ArrayList<>();
        ReportTrees.compare(REPORTS.get(CUT).get("warnings"), onSpark.get("warnings"), "/warnings", differences);
        assertEquals(List.of(), differences);
    }

    @Test
    void everyReportJsonEqualsTheClis() throws Exception {
        for (Map.Entry<String, JsonNode> e : REPORTS.entrySet()) {
            JsonNode onSpark = JSON.readTree(out.resolve("reports").resolve(e.getKey()).resolve("report.json").toFile());
            List<String> differences = new ArrayList<>();
            ReportTrees.compare(e.getValue(), onSpark, "", differences);
            assertEquals(List.of(), differences, e.getKey());
        }
        JsonNode index = JSON.readTree(out.resolve("reports").resolve("index.json").toFile());
        List<String> listed = new ArrayList<>();
        index.get("captures").forEach(c -> listed.add(c.get("report").asText()));
        assertEquals(REPORTS.keySet().stream().map(c -> c + "/report.json").sorted().toList(), listed.stream().sorted().toList());
    }

    @Test
    void collectivesMatchInstanceByInstance() throws Exception {
        List<String> cli = SparkTests.cliInstances(db);
        assertTrue(cli.size() > 1000, "instances: " + cli.size());
        assertEquals(cli, SparkTests.sparkInstances(spark, out));
        assertEquals(SparkTests.cliArrivals(db), SparkTests.sparkArrivals(spark, out));
    }

    @Test
    void fleetQueriesOfTheDocsRunOnSpark() throws Exception {
        FleetQueries.register(spark, out.toString());
        // A category's ms per step per capture: report.json's decode moe_gemm figure of each capture.
        Map<String, Double> moe = new TreeMap<>();
        for (Row r : spark.sql("SELECT capture, ms_per_step FROM category_trend WHERE phase = 'decode'"
                + " AND category = 'moe_gemm' ORDER BY started_ns").collectAsList()) {
            moe.put(r.getString(0), r.getDouble(1));
        }
        assertEquals(REPORTS.keySet(), moe.keySet());
        moe.forEach((capture, ms) -> {
            for (JsonNode c : REPORTS.get(capture).at("/phases/decode/categories")) {
                if (c.get("id").asText().equals("moe_gemm")) {
                    assertClose(c.get("ms_per_step").asDouble(), ms, capture);
                }
            }
        });
        // The worst straggler per capture: the rank whose late arrivals made the others wait longest, asked
        // here of the CLI's store.
        assertEquals(cliRows("""
                        SELECT name, last_rank, waited_ns FROM (
                            SELECT c.name, a.last_rank, sum(a.wait_ns) AS waited_ns,
                                   row_number() OVER (PARTITION BY c.name ORDER BY sum(a.wait_ns) DESC, a.last_rank) AS nth
                            FROM collective_arrivals a JOIN captures c USING (capture_id)
                            WHERE a.analysis_key = 'default' GROUP BY c.name, a.last_rank)
                        WHERE nth = 1 ORDER BY name"""),
                sparkRows("SELECT capture, rank, waited_ns FROM worst_straggler ORDER BY capture"));
    }

    @Test
    void theCrossRankStageOnSparkWritesTheRowsOfTheDrivers() throws Exception {
        // A capture this small runs the cross-rank stage in DuckDB on the driver: the same cross-rank.sql run by
        // Spark SQL over a copy of the rank-local tables the tasks wrote gives the same rows.
        Path copy = tmp.resolve("on-spark");
        for (String table : CrossRankStage.INPUTS.keySet()) {
            SparkTests.copyTree(out.resolve(table), copy.resolve(table));
        }
        CrossRankStage.run(spark, copy.toString(), result.captures(), tmp.resolve("spark-stage-scratch"));
        for (ViewScript.View v : ViewScript.CROSS_RANK.views()) {
            // Partition columns are read last: the columns are named, in one order for both.
            String columns = switch (v.name()) {
                // Sums of doubles in another order: equal to 9 decimals.
                case "phase_categories" -> "capture, phase, category, ranks, round(ms_per_step, 9), round(calls_per_step, 9)";
                case "collective_waits" -> "capture, instance, rank, file_id, step, phase, phase_index, type, k, ts_ns,"
                        + " dur_ns, dtype, group_size, msg_bytes, transfer_ns, wait_ns, after_category";
                case "step_waits" -> "capture, rank, file_id, step, phase, phase_index, wait_ns, compute_ns";
                default -> "capture, instance, phase, phase_index, type, k, ranks, last_rank, last_file_id, last_step,"
                        + " last_ts_ns, transfer_ns, lateness_ns, wait_ns, after_category";
            };
            String order = switch (v.name()) {
                case "phase_categories" -> "capture, phase, category";
                case "collective_waits" -> "capture, instance, CAST(rank AS INT)";
                case "step_waits" -> "capture, CAST(rank AS INT), step";
                default -> "capture, instance";
            };
            List<String> onDriver = sparkRows("SELECT " + columns + " FROM parquet.`" + out.resolve(v.name()) + "` ORDER BY " + order);
            assertTrue(!onDriver.isEmpty(), v.name());
            assertEquals(onDriver, sparkRows("SELECT " + columns + " FROM parquet.`" + copy.resolve(v.name())
                    + "` ORDER BY " + order), v.name());
        }
    }

    private static void assertClose(double expected, double actual, String what) {
        assertEquals(expected, actual, Math.abs(expected) * 1e-9, what);
    }

    private static List<String> sparkRows(String sql) {
        return SparkTests.rows(spark, sql);
    }

    private static List<String> cliRows(String sql) throws SQLException {
        return SparkTests.rows(db, sql);
    }
}
