package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.ArrivalOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stragglers on the real eager H200 capture (2 ranks; rank 1 is late: the others wait about 207 ms for
 * it in the prefill step and 0.4 ms per decode step), against {@link ArrivalOracle}, which pairs the
 * k-th NCCL kernel of each type of every rank's step straight from the JSON of the trace files.
 */
class StragglersOnRealTracesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path EAGER = TestData.sampleTraces().resolve("h200-tp2-moe-eager/batch16-prefill256");

    @TempDir
    static Path tmp;
    static JsonNode report;
    static String markdown;
    static Map<String, ArrivalOracle.PhaseArrivals> oracle;

    @BeforeAll
    static void reportAndOracle() throws Exception {
        Path out = tmp.resolve("out");
        assertEquals(0, Main.run("report", EAGER.toString(), "--db", tmp.resolve("s.duckdb").toString(),
                "--out", out.toString(), "--format", "json,md", "--quiet"));
        report = JSON.readTree(out.resolve("report.json").toFile());
        markdown = Files.readString(out.resolve("report.md"));
        oracle = ArrivalOracle.arrivals(TestData.kinetoTraces(EAGER));
    }

    @ParameterizedTest
    @ValueSource(strings = {"prefill", "decode"})
    void rankOneIsTheStragglerWithTheCausedWaitOfTheRawTraces(String phase) throws Exception {
        JsonSchemas.assertValid("report.schema.json", report);
        JsonNode stragglers = report.at("/phases/" + phase + "/stragglers");
        JsonNode first = stragglers.get(0);
        assertEquals(1, first.get("rank").asInt(), "most caused wait first");
        assertTrue(first.get("straggler").asBoolean(), phase + ": rank 1 named");
        for (int i = 1; i < stragglers.size(); i++) {
            assertFalse(stragglers.get(i).get("straggler").asBoolean(), "at most one straggler");
        }
        ArrivalOracle.PhaseArrivals truth = oracle.get(phase);
        double want = truth.causedWaitMsPerStep(1);
        assertEquals(want, first.get("caused_wait_ms_per_step").asDouble(), want * 0.05,
                phase + ": caused wait within 5% of the raw traces' pairing");
        long late = truth.byRank().get(1).instances();
        assertEquals(late, first.get("late_instances").asDouble(), late * 0.05, phase + ": instances where rank 1 was last");
        assertEquals(100.0 * late / truth.instances(), first.get("late_share_pct").asDouble(), 5);
        double wait0 = truth.causedWaitMsPerStep(0);
        assertEquals(wait0, stragglers.get(1).get("caused_wait_ms_per_step").asDouble(), Math.max(wait0 * 0.05, 1e-3));
        assertTrue(first.get("where").size() > 0, "the straggler's call sites are listed");
        assertTrue(first.get("after_categories").size() > 0);
    }

    @Test
    void ranksAreBadgedByComputeTimeNotKernelTime() {
        // Rank 0 spends most kernel time (it spins waiting for rank 1); without the wait, rank 1 computes more.
        for (String phase : new String[] {"prefill", "decode"}) {
            JsonNode p = report.at("/phases/" + phase);
            assertEquals(0, p.at("/kernel_ms_per_step/max/rank").asInt(), phase + ": most kernel time on rank 0");
            assertEquals(1, p.at("/compute_ms_per_step/max/rank").asInt(), phase + ": most compute time on rank 1");
            for (JsonNode rank : report.get("ranks")) {
                JsonNode rp = rank.at("/phases/" + phase);
                assertEquals(rp.at("/kernel_ms_per_step/mean").asDouble(),
                        rp.at("/compute_ms_per_step/mean").asDouble() + rp.at("/wait_ms_per_step/mean").asDouble(), 1e-6);
            }
        }
    }

    @Test
    void markdownNamesTheStragglerAndSaysOneStep() {
        assertTrue(markdown.contains("**Rank 1 arrives last at "), markdown);
        assertTrue(markdown.contains("### Prefill: 1 step per rank"), "one step, singular");
        assertFalse(markdown.contains("1 steps"));
    }
}
