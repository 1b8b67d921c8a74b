package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.rules.Thresholds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One small hand-made Kineto capture per capture-quality rule that triggers it, and where cheap one
 * that does not. Each rank file is written here: ProfilerStep annotations on the CPU thread, a
 * cudaLaunchKernel per kernel, kernels 100 µs long; the expected counts follow from that construction.
 */
class CaptureRulesTest {
    private static final String GEMM = "ampere_sgemm_128x64_nn";

    @TempDir
    Path tmp;

    /** One rank file: its rank and world size, listed devices, steps, and kernels per step. */
    private record Rank(int rank, int worldSize, String devices, int device, int steps, String kernel,
                        boolean kernelBeforeFirstStep) {
        static Rank of(int rank, int worldSize, int steps) {
            return new Rank(rank, worldSize, "[{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}]", 0, steps, GEMM, false);
        }

        Rank withDevice(String devices, int device) {
            return new Rank(rank, worldSize, devices, device, steps, kernel, kernelBeforeFirstStep);
        }

        Rank withKernel(String name) {
            return new Rank(rank, worldSize, devices, device, steps, name, kernelBeforeFirstStep);
        }

        Rank withKernelBeforeFirstStep() {
            return new Rank(rank, worldSize, devices, device, steps, kernel, true);
        }

        String json() {
            List<String> ev = new ArrayList<>();
            long correlation = 1;
            long t = 1_000;
            if (kernelBeforeFirstStep) {
                ev.add(launch(t, correlation));
                ev.add(kernel(t + 10, correlation++));
                t += 500;
            }
            for (int s = 0; s < steps; s++) {
                ev.add(String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\","
                        + " \"pid\": 100, \"tid\": 100, \"ts\": %d, \"dur\": 900}", s, t));
                ev.add(launch(t + 10, correlation));
                ev.add(kernel(t + 20, correlation++));
                t += 1_000;
            }
            return String.format(Locale.ROOT, "{\"deviceProperties\": %s, \"distributedInfo\": {\"rank\": %d, \"world_size\": %d},"
                    + " \"traceEvents\": [%s]}", devices, rank, worldSize, String.join(",\n", ev));
        }

        private static String launch(long ts, long correlation) {
            return String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\","
                    + " \"pid\": 100, \"tid\": 100, \"ts\": %d, \"dur\": 5, \"args\": {\"correlation\": %d}}", ts, correlation);
        }

        private String kernel(long ts, long correlation) {
            return String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %d, \"tid\": 7,"
                    + " \"ts\": %d, \"dur\": 100, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": %d}}",
                    kernel, device, ts, device, correlation);
        }
    }

    private JsonNode warnings(String name, Rank... ranks) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(name));
        for (int i = 0; i < ranks.length; i++) {
            Files.writeString(dir.resolve("rank" + i + ".pt.trace.json"), ranks[i].json(), StandardCharsets.UTF_8);
        }
        Path out = tmp.resolve(name + "-out");
        assertEquals(0, Main.run("report", dir.toString(), "--db", tmp.resolve(name + ".duckdb").toString(), "--out",
                out.toString(), "--quiet"));
        return new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("warnings");
    }

    private static List<JsonNode> of(JsonNode warnings, String code) {
        List<JsonNode> out = new ArrayList<>();
        warnings.forEach(w -> {
            if (w.get("code").asText().equals(code)) {
                out.add(w);
            }
        });
        return out;
    }

    private static JsonNode only(JsonNode warnings, String code, String severity) {
        List<JsonNode> found = of(warnings, code);
        assertEquals(1, found.size(), code + " once in " + warnings);
        assertEquals(severity, found.get(0).get("severity").asText());
        assertTrue(!found.get(0).get("summary").asText().isEmpty());
        return found.get(0);
    }

    @Test
    void missingRanks() throws IOException {
        JsonNode w = warnings("missing", Rank.of(0, 4, 2), Rank.of(1, 4, 2));
        String m = only(w, "missing_ranks", "warning").get("message").asText();
        assertTrue(m.contains("world size 4 but only 2 rank file(s)"), m);
        assertTrue(of(warnings("complete", Rank.of(0, 2, 2), Rank.of(1, 2, 2)), "missing_ranks").isEmpty());
    }

    @Test
    void stepCountMismatch() throws IOException {
        JsonNode w = warnings("mismatch", Rank.of(0, 2, 3), Rank.of(1, 2, 2));
        String m = only(w, "step_count_mismatch", "warning").get("message").asText();
        assertTrue(m.contains("rank 0: 3, rank 1: 2") && m.contains("over the first 2 steps"), m);
        assertTrue(of(warnings("matched", Rank.of(0, 2, 3), Rank.of(1, 2, 3)), "step_count_mismatch").isEmpty());
    }

    @Test
    void unknownPhase() throws IOException {
        // ProfilerStep steps without a vLLM or prefill/decode annotation inside have no phase: all 3.
        JsonNode w = warnings("unknown", Rank.of(0, 1, 3));
        assertTrue(only(w, "unknown_phase", "warning").get("message").asText().startsWith("3 step(s) have no phase"));
    }

    @Test
    void opsOutsideSteps() throws IOException {
        // One kernel of 100 µs before the first of 4 steps, each with one kernel of 100 µs: 1 of 5, 20%.
        JsonNode w = warnings("outside", Rank.of(0, 1, 4).withKernelBeforeFirstStep());
        String m = only(w, "ops_outside_steps", "info").get("message").asText();
        assertTrue(m.startsWith("1 GPU operation(s) (0.10 ms, 20.0% of GPU time)"), m);
        assertTrue(of(warnings("inside", Rank.of(0, 1, 4)), "ops_outside_steps").isEmpty());
    }

    @Test
    void unclassifiedKernels() throws IOException {
        JsonNode w = warnings("unclassified", Rank.of(0, 1, 2).withKernel("my_own_fused_thing"));
        String m = only(w, "unclassified_kernels", "warning").get("message").asText();
        assertTrue(m.startsWith("100.0% of kernel time is in 1 kernel name(s)"), m);
        assertTrue(of(warnings("classified", Rank.of(0, 1, 2)), "unclassified_kernels").isEmpty());
    }

    @Test
    void deviceGuessedAndUnknown() throws IOException {
        JsonNode guessed = warnings("guessed", Rank.of(0, 1, 2).withDevice(
                "[{\"id\": 0, \"name\": \"AMD Instinct MI300X\"}]", 9));
        String m = only(guessed, "device_guessed", "info").get("message").asText();
        assertTrue(m.contains("device 9") && m.contains("it lists id 0") && m.contains("taken to be AMD Instinct MI300X"), m);
        JsonNode unknown = warnings("unknown-device", Rank.of(0, 1, 2).withDevice(
                "[{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}, {\"id\": 1, \"name\": \"NVIDIA A100-SXM4-80GB\"}]", 5));
        m = only(unknown, "device_unknown", "warning").get("message").asText();
        assertTrue(m.contains("device 5") && m.contains("it lists id 0, 1"), m);
        assertTrue(of(warnings("listed", Rank.of(0, 1, 2)), "device_guessed").isEmpty());
    }

    @Test
    void partialFile() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("partial"));
        String json = Rank.of(0, 1, 3).json();
        Files.writeString(dir.resolve("rank0.pt.trace.json"), json.substring(0, json.lastIndexOf("{\"ph\"")),
                StandardCharsets.UTF_8);
        Path out = tmp.resolve("partial-out");
        assertEquals(0, Main.run("report", dir.toString(), "--db", tmp.resolve("partial.duckdb").toString(), "--out",
                out.toString(), "--quiet"));
        JsonNode w = new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("warnings");
        assertTrue(only(w, "partial_file", "severe").get("message").asText().contains("rank0.pt.trace.json is incomplete"));
    }

    @Test
    void thresholdOverridesAreCheckedAgainstTheRules() {
        Thresholds t = Thresholds.parse(List.of("clock_offset.offset_us=500"), CaptureRules.catalogue());
        assertEquals(500, t.get(ClockOffsetRule.RULE, "offset_us"));
        assertEquals(5, t.get(UnclassifiedKernelsRule.RULE, "kernel_time_pct"), "the default");
        for (String bad : List.of("clock_offset=5", "no_such_rule.x=1", "clock_offset.offset=1", "clock_offset.offset_us=x",
                "partial_file.any=1")) {
            assertThrows(IllegalArgumentException.class, () -> Thresholds.parse(List.of(bad), CaptureRules.catalogue()), bad);
        }
    }
}
