package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.testsupport.SynthReports;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Overlap and host-bound figures on synthetic captures against the generator's EXPECTED.json, which
 * sweeps each step's events as it writes them: collectives on a side stream under the compute that
 * follows them (synth {@code --comm-stream}) report the generator's hidden share within one percentage
 * point; an eager capture whose host takes four times as long per launch (synth {@code --host-overhead
 * 4}: host gaps longer than the kernels) gets the launch-bound warning for decode, not for prefill.
 */
class OverlapAndHostBoundOnSynthTest {
    @TempDir
    static Path tmp;
    static JsonNode sideStream;
    static JsonNode sideStreamTruth;
    static JsonNode slowHost;
    static JsonNode slowHostTruth;

    @BeforeAll
    static void generateAndReport() throws Exception {
        SynthReports side = SynthReports.of(tmp, "side-stream", "moe-tp8-graph", 4, 3, "--comm-stream");
        sideStream = side.report();
        sideStreamTruth = side.expected();
        SynthReports host = SynthReports.of(tmp, "slow-host", "moe-tp8-eager", 2, 3, "--host-overhead", "4");
        slowHost = host.report();
        slowHostTruth = host.expected();
    }

    @ParameterizedTest
    @ValueSource(strings = {"decode", "prefill"})
    void communicationOnASideStreamIsHiddenAsTheGeneratorBuiltIt(String phase) {
        JsonNode got = sideStream.at("/phases/" + phase + "/overlap");
        JsonNode want = sideStreamTruth.at("/phases/" + phase + "/overlap");
        assertTrue(want.get("hidden_pct").asDouble() > 50, "the generator hid most of it: " + want);
        assertEquals(want.get("hidden_pct").asDouble(), got.get("hidden_pct").asDouble(), 1.0, phase + ": hidden share");
        double comm = want.get("comm_ms_per_step").asDouble();
        assertEquals(comm, got.get("comm_ms_per_step").asDouble(), comm * 0.005);
        assertEquals(got.get("comm_ms_per_step").asDouble(),
                got.get("hidden_ms_per_step").asDouble() + got.get("exposed_ms_per_step").asDouble(), 1e-9);
    }

    @Test
    void hostGapsLongerThanKernelsMakeDecodeLaunchBound() {
        List<String> codes = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        slowHost.get("warnings").forEach(w -> {
            codes.add(w.get("code").asText());
            messages.add(w.get("message").asText());
        });
        assertEquals(1, codes.stream().filter("launch_bound"::equals).count(), messages.toString());
        assertTrue(messages.get(codes.indexOf("launch_bound")).startsWith("decode is launch-bound"), messages.toString());
        JsonNode decode = slowHost.at("/phases/decode/host_bound");
        JsonNode want = slowHostTruth.at("/phases/decode/host");
        double wait = want.get("launch_wait_ms_per_step").asDouble();
        assertEquals(wait, decode.get("launch_wait_ms_per_step").asDouble(), wait * 0.05, "idle waiting for launches");
        assertEquals(want.get("idle_ms_per_step").asDouble(), decode.get("idle_ms_per_step").asDouble(),
                want.get("idle_ms_per_step").asDouble() * 0.05);
        assertTrue(decode.get("launch_bound").asBoolean());
        assertFalse(slowHost.at("/phases/prefill/host_bound/launch_bound").asBoolean(), "prefill kernels outlast the launches");
        assertEquals(0, decode.get("graph_replays_per_step").asDouble(), "eager: no graph replays");
        assertTrue(decode.get("launch_delays").size() > 0);
    }

    @Test
    void graphReplaysAreCountedAndTheSideStreamCaptureIsNotLaunchBound() {
        JsonNode decode = sideStream.at("/phases/decode/host_bound");
        assertEquals(1, decode.get("graph_replays_per_step").asDouble(), "one cudaGraphLaunch per decode step");
        assertEquals(0, sideStream.at("/phases/prefill/host_bound/graph_replays_per_step").asDouble(), "prefill is eager");
        assertFalse(decode.get("launch_bound").asBoolean());
        sideStream.get("warnings").forEach(w -> assertFalse(w.get("code").asText().equals("launch_bound"), w.toString()));
    }
}
