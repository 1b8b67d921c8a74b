package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.cli.Main;
import dev.steptrace.testing.JsonSchemas;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report on an 8-rank {@code moe-tp8-graph} synthetic capture against the generator's
 * EXPECTED.json: the generator labels every kernel it writes with its category, independently of the
 * taxonomy the report classifies with.
 */
class ReportOnSynthTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;
    static JsonNode report;
    static JsonNode expected;

    @BeforeAll
    static void generateAndReport() throws Exception {
        Path capture = tmp.resolve("moe-tp8-graph");
        assertEquals(0, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "8", "--steps", "12",
                "--out", capture.toString(), "--seed", "7", "--quiet"));
        assertEquals(0, Main.run("report", capture.toString(), "--db", tmp.resolve("s.duckdb").toString(),
                "--out", tmp.resolve("out").toString(), "--format", "json", "--quiet"));
        report = JSON.readTree(tmp.resolve("out/report.json").toFile());
        expected = JSON.readTree(capture.resolve("EXPECTED.json").toFile());
    }

    @Test
    void reportIsValid() throws Exception {
        JsonSchemas.assertValid("report.schema.json", report);
        assertEquals(8, report.at("/capture/world_size").asInt());
        assertEquals(8, report.get("ranks").size());
    }

    @Test
    void decodeCategoriesMatchTheGeneratorWithinHalfAPercentAndCallsExactly() {
        JsonNode decode = report.at("/phases/decode");
        JsonNode truth = expected.at("/phases/decode");
        assertEquals("vllm_annotation", decode.get("step_source").asText());
        assertEquals(truth.get("steps").asDouble(), decode.get("steps").asDouble());
        Map<String, JsonNode> got = new HashMap<>();
        decode.get("categories").forEach(c -> got.put(c.get("id").asText(), c));
        assertEquals(truth.get("categories").size(), got.size(), "the same categories have time");
        for (JsonNode t : truth.get("categories")) {
            String id = t.get("id").asText();
            JsonNode g = got.get(id);
            double want = t.get("ms_per_step").asDouble();
            assertEquals(want, g.get("ms_per_step").asDouble(), want * 0.005, id + " ms per step");
            assertEquals(t.get("calls_per_step").asDouble(), g.get("calls_per_step").asDouble(), 0, id + " calls per step");
        }
        assertEquals(truth.get("kernel_ms_per_step").asDouble(), decode.at("/kernel_ms_per_step/mean").asDouble(),
                truth.get("kernel_ms_per_step").asDouble() * 0.005);
    }

    @Test
    void stepTimeIsTheGeneratorsAndItsPartsSumToIt() {
        JsonNode t = report.at("/phases/decode/step_time");
        double want = expected.at("/phases/decode/step_ms_per_step").asDouble();
        assertEquals(want, t.get("ms_per_step").asDouble(), want * 1e-9, "the windows of the generator's annotations");
        double parts = 0;
        for (JsonNode p : t.get("parts")) {
            parts += p.get("ms_per_step").asDouble();
        }
        assertEquals(t.get("ms_per_step").asDouble(), parts, want * 0.01);
        for (JsonNode r : report.get("ranks")) {
            JsonNode rt = r.at("/phases/decode/step_time");
            double sum = 0;
            for (JsonNode p : rt.get("parts")) {
                sum += p.get("ms_per_step").asDouble();
            }
            assertEquals(rt.at("/ms_per_step/mean").asDouble(), sum, want * 0.01, "rank " + r.get("rank"));
        }
    }

    @Test
    void topKernelRulesAreTheTaxonomysAndCategoriesTheGenerators() {
        Taxonomy taxonomy = Taxonomy.builtIn();
        Map<String, String> generated = new HashMap<>();
        expected.get("kernels").forEach(k -> generated.put(k.get("name").asText(), k.get("category").asText()));
        JsonNode top = report.at("/phases/decode/top_kernels");
        assertTrue(top.size() >= 10);
        for (JsonNode k : top) {
            String name = k.get("name").asText();
            String kind = name.startsWith("Memcpy") || name.startsWith("Memset") ? "memcpy" : "kernel";
            assertEquals(taxonomy.classify(name, kind).ruleId(), k.get("rule").asText(), name);
            assertEquals(generated.get(name), k.get("category").asText(), "generator's category of " + name);
        }
    }

    @Test
    void allReduceWaitAndTransferMatchTheGenerator() {
        JsonNode truth = expected.at("/phases/decode/collectives/0");
        JsonNode got = null;
        for (JsonNode c : report.get("collectives")) {
            if (c.get("phase").asText().equals("decode") && c.get("type").asText().equals("allreduce")) {
                got = c;
            }
        }
        assertEquals(truth.get("calls_per_step").asDouble(), got.get("calls_per_step").asDouble());
        assertEquals(truth.get("transfer_ms_per_step").asDouble(), got.get("transfer_ms_per_step").asDouble(),
                truth.get("transfer_ms_per_step").asDouble() * 0.005);
        assertEquals(truth.get("wait_ms_per_step").asDouble(), got.get("wait_ms_per_step").asDouble(),
                Math.max(1e-6, truth.get("wait_ms_per_step").asDouble() * 0.005));
    }
}
