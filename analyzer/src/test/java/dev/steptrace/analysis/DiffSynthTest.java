package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A synthetic capture against the same one with attention 20% slower ({@code synth --scale}): the
 * diff must flag attention alone, by the size EXPECTED.json gives, within a percentage point.
 */
class DiffSynthTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void flagsTheScaledCategoryAlone() throws Exception {
        Path a = tmp.resolve("base");
        Path b = tmp.resolve("attention-1.2");
        Cli.assertExit(0, Cli.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "20", "--seed", "1",
                "--out", a.toString(), "-q"));
        Cli.assertExit(0, Cli.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "20", "--seed", "1",
                "--scale", "attention=1.2", "--out", b.toString(), "-q"));
        Path out = tmp.resolve("diff");
        Cli.Result r = Cli.run("diff", a.toString(), b.toString(), "--db", tmp.resolve("store.duckdb").toString(),
                "--out", out.toString(), "--format", "json", "--quiet");
        assertEquals(0, r.exit(), r::describe);
        JsonNode diff = JSON.readTree(out.resolve("diff.json").toFile());
        JsonSchemas.assertValid("diff.schema.json", diff);

        Map<String, Double> truthA = expected(a);
        Map<String, Double> truthB = expected(b);
        JsonNode decode = diff.at("/phases/decode");
        assertEquals(20, decode.get("steps_a").asDouble());
        assertEquals("slower", decode.get("verdict").asText());
        for (JsonNode c : decode.get("categories")) {
            String id = c.get("id").asText();
            assertEquals(truthA.get(id), c.get("a_ms_per_step").asDouble(), truthA.get(id) * 0.005, id);
            assertEquals(truthB.get(id), c.get("b_ms_per_step").asDouble(), truthB.get(id) * 0.005, id);
            assertEquals(id.equals("attention"), c.get("significant").asBoolean(), id + ": " + c);
        }
        JsonNode attention = decode.get("categories").get(0);
        assertEquals("attention", attention.get("id").asText(), "the largest change comes first");
        double truthPct = 100 * (truthB.get("attention") / truthA.get("attention") - 1);
        assertEquals(20, truthPct, 0.05);
        assertEquals(truthPct, attention.get("delta_pct").asDouble(), 1.0);
        assertTrue(attention.at("/ci95_ms/0").asDouble() > 0);
        for (JsonNode k : decode.get("kernels")) {
            assertEquals(k.get("category").asText().equals("attention"), k.get("significant").asBoolean(), k.toString());
            assertFalse(k.get("calls_changed").asBoolean());
        }

        // One prefill step per side: compared, but with no interval nothing is significant, and a warning says so.
        JsonNode prefill = diff.at("/phases/prefill");
        assertEquals("no_significant_change", prefill.get("verdict").asText());
        assertNull(category(prefill, "attention").get("ci95_ms").textValue());
        assertTrue(category(prefill, "attention").get("ci95_ms").isNull());
        assertTrue(diff.get("warnings").toString().contains("few_steps"), diff.get("warnings").toString());
    }

    private static JsonNode category(JsonNode phase, String id) {
        for (JsonNode c : phase.get("categories")) {
            if (c.get("id").asText().equals(id)) {
                return c;
            }
        }
        throw new AssertionError(id);
    }

    private static Map<String, Double> expected(Path capture) throws Exception {
        JsonNode e = JSON.readTree(capture.resolve("EXPECTED.json").toFile());
        Map<String, Double> m = new HashMap<>();
        e.at("/phases/decode/categories").forEach(c -> m.put(c.get("id").asText(), c.get("ms_per_step").asDouble()));
        return m;
    }
}
