package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.testsupport.SynthReports;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stragglers on synthetic captures against the generator's EXPECTED.json, which records, for every
 * collective instance it simulated, which rank arrived last and how long the others waited: with rank
 * 2 slowed by 20% (synth {@code --slow-rank 2=1.2}) the report names rank 2 with the generator's caused
 * wait; the same capture without the slowdown (its ranks still differ by up to 3% in speed, and by
 * jitter) names nobody.
 */
class StragglersOnSynthTest {
    @TempDir
    static Path tmp;
    static JsonNode slowed;
    static JsonNode slowedTruth;
    static JsonNode even;

    @BeforeAll
    static void generateAndReport() throws Exception {
        SynthReports slow = SynthReports.of(tmp, "slowed", "moe-tp8-graph", 4, 4, "--slow-rank", "2=1.2");
        slowed = slow.report();
        slowedTruth = slow.expected();
        even = SynthReports.of(tmp, "even", "moe-tp8-graph", 4, 4).report();
    }

    @ParameterizedTest
    @ValueSource(strings = {"decode", "prefill"})
    void theSlowedRankIsNamedWithTheGeneratorsCausedWait(String phase) {
        JsonNode got = slowed.at("/phases/" + phase + "/stragglers/0");
        JsonNode want = slowedTruth.at("/phases/" + phase + "/stragglers/0");
        assertEquals(2, want.get("rank").asInt(), "the generator's own record: rank 2 is the last to arrive");
        assertEquals(2, got.get("rank").asInt());
        assertTrue(got.get("straggler").asBoolean(), phase + ": rank 2 named");
        double wait = want.get("caused_wait_ms_per_step").asDouble();
        assertEquals(wait, got.get("caused_wait_ms_per_step").asDouble(), wait * 0.05, phase + ": caused wait");
        assertEquals(want.get("late_instances").asDouble(), got.get("late_instances").asDouble(),
                want.get("late_instances").asDouble() * 0.05, phase + ": instances where rank 2 was last");
        for (JsonNode other : slowed.at("/phases/" + phase + "/stragglers")) {
            assertTrue(other.get("rank").asInt() == 2 || !other.get("straggler").asBoolean(), "only rank 2");
        }
        assertEquals(2, slowed.at("/phases/" + phase + "/compute_ms_per_step/max/rank").asInt(), "most compute on rank 2");
    }

    @ParameterizedTest
    @ValueSource(strings = {"decode", "prefill"})
    void withoutASlowedRankNobodyIsNamed(String phase) {
        JsonNode list = even.at("/phases/" + phase + "/stragglers");
        assertTrue(list.size() > 0, "ranks still arrive last at some instances");
        for (JsonNode s : list) {
            assertFalse(s.get("straggler").asBoolean(), phase + ": rank " + s.get("rank") + " is within the noise");
            assertEquals(0, s.get("where").size());
        }
    }
}
