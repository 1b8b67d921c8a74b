package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.DuckDbNode;
import dev.steptrace.testsupport.ProfilerStepOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The analysis tables as a user reads them, on a store holding the three sample captures: the README's
 * queries run as written, and docs/schema.md's query over {@code step_categories} gives report.json's
 * decode table to 1e-9, through {@code steptrace query} and through a second DuckDB client (Node.js).
 */
class AnalysisTablesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SQL_BLOCK = Pattern.compile("```sql\\n(.*?)```", Pattern.DOTALL);
    private static final List<String> CAPTURES = List.of("graph-nccl-ll", "graph-nccl-simple", "batch16-prefill256");

    @TempDir
    static Path tmp;

    private static Path db;
    private static final Map<String, JsonNode> REPORTS = new HashMap<>();

    @BeforeAll
    static void ingestTheSampleCapturesAndReportThem() throws Exception {
        db = tmp.resolve("store.duckdb");
        Cli.assertExit(0, Cli.run("ingest", TestData.sampleTraces().toString(), "--db", db.toString(), "-q"));
        Path out = tmp.resolve("out");
        Cli.assertExit(0, Cli.run("report", TestData.sampleTraces().toString(), "--db", db.toString(), "--out",
                out.toString(), "--format", "json", "-q"));
        for (String name : CAPTURES) {
            REPORTS.put(name, JSON.readTree(out.resolve(name).resolve("report.json").toFile()));
        }
    }

    @Test
    void theSampleFolderIsThreeCapturesWithOneReportEachAndAnIndex() throws Exception {
        JsonNode index = JSON.readTree(tmp.resolve("out/index.json").toFile());
        List<String> names = new ArrayList<>();
        for (JsonNode entry : index.get("captures")) {
            names.add(entry.get("name").asText());
            assertEquals(entry.get("name").asText() + "/report.json", entry.get("report").asText());
            assertEquals(2, entry.get("files").asInt(), entry.toString());
        }
        assertEquals(Set.copyOf(CAPTURES), Set.copyOf(names));
        assertEquals(CAPTURES.size(), names.size());
    }

    @Test
    void theReadmeQueriesWorkAsWrittenOnAStoreOfSeveralCaptures() throws Exception {
        List<String> queries = sqlBlocks(Files.readString(TestData.repoRoot().resolve("README.md")));
        assertEquals(3, queries.size(), "slowest steps; all-reduce wait per rank; a category across captures");

        // 1. The five slowest decode steps of graph-nccl-ll: kernel time per step recomputed from a tree
        // parse of each rank's trace (GPU work launched inside each ProfilerStep range).
        List<double[]> expected = new ArrayList<>();
        Path ll = TestData.sampleTraces().resolve("h200-tp2-moe-decode/graph-nccl-ll");
        List<Path> rankFiles;
        try (var files = Files.list(ll)) {
            rankFiles = files.sorted().toList();
        }
        for (int rank = 0; rank < rankFiles.size(); rank++) {
            List<Double> perStep = ProfilerStepOracle.msPerStep(rankFiles.get(rank),
                    e -> Set.of("kernel", "gpu_memcpy", "gpu_memset").contains(e.path("cat").asText()));
            for (int step = 0; step < perStep.size(); step++) {
                expected.add(new double[] {rank, step, perStep.get(step)});
            }
        }
        expected.sort(Comparator.comparingDouble((double[] r) -> r[2]).reversed());
        JsonNode slowest = query(queries.get(0));
        assertEquals(5, slowest.size());
        for (int i = 0; i < 5; i++) {
            JsonNode row = slowest.get(i);
            assertEquals((int) expected.get(i)[0], row.get("rank").asInt(), "row " + i);
            assertEquals((int) expected.get(i)[1], row.get("step").asInt(), "row " + i);
            assertEquals(expected.get(i)[2], row.get("kernel_ms").asDouble(), 0.0005 + 1e-6, "row " + i);
            assertTrue(Set.of("allreduce", "comm_other", "attention", "moe_gemm", "gemm", "routing", "memcpy", "other")
                    .contains(row.get("most_above_median").asText()), row.toString());
        }

        // 2. All-reduce wait and transfer per rank: each capture's ranks average to report.json's
        // wait_ms_per_step, and each rank's transfer is the instance's fastest rank, the same on all ranks.
        JsonNode waits = query(queries.get(1));
        assertEquals(6, waits.size(), "3 captures x 2 ranks");
        for (String name : CAPTURES) {
            JsonNode ar = collective(REPORTS.get(name), "decode", "allreduce");
            double waitSum = 0;
            int ranks = 0;
            for (JsonNode row : waits) {
                if (row.get("capture").asText().equals(name)) {
                    waitSum += row.get("wait_ms_per_step").asDouble();
                    ranks++;
                    assertEquals(ar.get("transfer_ms_per_step").asDouble(), row.get("transfer_ms_per_step").asDouble(),
                            0.0005 + 1e-9, name);
                }
            }
            assertEquals(2, ranks, name);
            assertEquals(ar.get("wait_ms_per_step").asDouble(), waitSum / ranks, 0.0005 + 1e-9, name);
        }

        // 3. Attention per decode step in every capture: report.json's number.
        JsonNode attention = query(queries.get(2));
        assertEquals(3, attention.size());
        for (JsonNode row : attention) {
            assertEquals(category(REPORTS.get(row.get("capture").asText()), "attention"),
                    row.get("attention_ms_per_step").asDouble(), 1e-9, row.toString());
        }
    }

    @Test
    void stepCategoriesGiveReportJsonsDecodeTableThroughSteptraceQuery() throws Exception {
        for (String name : CAPTURES) {
            assertSameTable(REPORTS.get(name), query(decodeTableQuery(name)), name);
        }
    }

    @Test
    void aSecondDuckDbClientReadsTheStoreAndGetsTheSameNumbers() throws Exception {
        Path modules = DuckDbNode.modulesOrSkip();
        // The client's DuckDB is the one steptrace writes with: the same storage format.
        String jdbcVersion = query("SELECT version() AS v").get(0).get("v").asText();
        assertEquals(jdbcVersion, DuckDbNode.query(modules, db, "SELECT version() AS v").get(0).get("v").asText());
        for (String name : CAPTURES) {
            assertSameTable(REPORTS.get(name), DuckDbNode.query(modules, db, decodeTableQuery(name)), name);
        }
    }

    /** docs/schema.md's query of report.json's decode table, for the capture named {@code name}. */
    private static String decodeTableQuery(String name) throws Exception {
        String doc = Files.readString(TestData.repoRoot().resolve("docs/schema.md"));
        String q = sqlBlocks(doc).stream().filter(s -> s.contains("FROM step_categories k JOIN ranks")).findFirst()
                .orElseThrow(() -> new AssertionError("docs/schema.md lost its step_categories query"));
        long id = query("SELECT capture_id FROM captures WHERE name = '" + name + "'").get(0).get("capture_id").asLong();
        return q.replace("capture_id = 1", "capture_id = " + id);
    }

    private static void assertSameTable(JsonNode report, JsonNode rows, String name) {
        JsonNode categories = report.at("/phases/decode/categories");
        assertEquals(categories.size(), rows.size(), name + ": " + rows);
        for (int i = 0; i < rows.size(); i++) {
            assertEquals(categories.get(i).get("id").asText(), rows.get(i).get("category").asText(), name);
            assertEquals(categories.get(i).get("ms_per_step").asDouble(), rows.get(i).get("ms_per_step").asDouble(),
                    1e-9, name + " " + categories.get(i).get("id").asText());
        }
    }

    private static JsonNode query(String sql) {
        Cli.Result r = Cli.run("query", sql, "--db", db.toString(), "--format", "json");
        Cli.assertExit(0, r);
        return r.json();
    }

    private static List<String> sqlBlocks(String markdown) {
        List<String> out = new ArrayList<>();
        Matcher m = SQL_BLOCK.matcher(markdown);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static JsonNode collective(JsonNode report, String phase, String type) {
        for (JsonNode c : report.get("collectives")) {
            if (c.get("phase").asText().equals(phase) && c.get("type").asText().equals(type)) {
                return c;
            }
        }
        throw new AssertionError("no " + phase + " " + type + " in " + report.at("/capture/name"));
    }

    private static double category(JsonNode report, String id) {
        for (JsonNode c : report.at("/phases/decode/categories")) {
            if (c.get("id").asText().equals(id)) {
                return c.get("ms_per_step").asDouble();
            }
        }
        return 0;
    }
}
