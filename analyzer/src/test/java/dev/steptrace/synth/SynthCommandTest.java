package dev.steptrace.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.steptrace.cli.Main;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code steptrace synth} on the command line: exit codes and what it leaves behind. */
class SynthCommandTest {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    @TempDir
    Path tmp;

    @Test
    void writesTheTracesAndExpectedJson() throws IOException {
        Path out = tmp.resolve("capture");
        int rc = Main.run("synth", "--preset", "moe-tp8-eager", "--ranks", "2", "--steps", "1", "--prefill-steps", "0",
                "--batch", "4", "--scale", "gemm=2", "--out", out.toString(), "-q");
        assertEquals(0, rc);
        assertTrue(Files.exists(out.resolve("EXPECTED.json")));
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(2, files.filter(p -> p.getFileName().toString().matches(
                    "dp0_pp0_tp\\d_dcp0_ep0_rank\\d\\.\\d+\\.pt\\.trace\\.json\\.gz")).count());
        }
        String expected = Files.readString(out.resolve("EXPECTED.json"));
        assertTrue(expected.contains("\"batch\" : 4"), expected.substring(0, 300));
        assertTrue(expected.contains("execute_context_0(0)_generation_4(4)"));
        // A second run into its own output directory replaces the previous capture.
        assertEquals(0, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "1", "--steps", "1", "--prefill-steps", "0",
                "--no-gzip", "--out", out.toString(), "-q"));
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(2, files.count());
        }
    }

    /**
     * {@code --clock-offset} moves every time of the shifted ranks, and nothing else: the same capture
     * written without it differs only by that many nanoseconds in those ranks' timestamps.
     */
    @Test
    void clockOffsetShiftsTheRanksTimes() throws IOException {
        Path plain = tmp.resolve("plain");
        Path shifted = tmp.resolve("shifted");
        String[] common = {"synth", "--preset", "moe-tp8-eager", "--ranks", "3", "--steps", "1", "--prefill-steps", "0",
                "--no-gzip", "-q"};
        assertEquals(0, Main.run(concat(common, "--out", plain.toString())));
        assertEquals(0, Main.run(concat(common, "--out", shifted.toString(), "--clock-offset", "1-2=250us",
                "--clock-offset", "2=-1.5ms")));
        JsonNode expectedPlain = JSON.readTree(plain.resolve("EXPECTED.json").toFile());
        JsonNode expectedShifted = JSON.readTree(shifted.resolve("EXPECTED.json").toFile());
        long[] shift = {0, 250_000, -1_500_000};
        for (int r = 0; r < 3; r++) {
            long before = expectedPlain.at("/files/" + r + "/clock_offset_ns").asLong();
            assertTrue(before >= 0 && before <= 4_000, "a rank's own clock is off by 0-4 µs: " + before);
            assertEquals(before + shift[r], expectedShifted.at("/files/" + r + "/clock_offset_ns").asLong(), "rank " + r);
            List<Long> a = timestamps(trace(plain, r));
            List<Long> b = timestamps(trace(shifted, r));
            assertEquals(a.size(), b.size());
            for (int i = 0; i < a.size(); i++) {
                assertEquals(a.get(i) + shift[r], b.get(i), "rank " + r + " event " + i);
            }
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static Path trace(Path dir, int rank) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().contains("_rank" + rank + ".")).findFirst().orElseThrow();
        }
    }

    /** Every event's {@code ts}, as nanoseconds from the decimal text. */
    private static List<Long> timestamps(Path trace) throws IOException {
        List<Long> out = new ArrayList<>();
        for (JsonNode e : JSON.readTree(trace.toFile()).get("traceEvents")) {
            if (e.has("ts")) {
                out.add(e.get("ts").decimalValue().movePointRight(3).longValueExact());
            }
        }
        return out;
    }

    @Test
    void layersShrinkTheStepNotItsCategoryTimes() throws IOException {
        Path out = tmp.resolve("layers");
        assertEquals(0, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "1", "--steps", "1", "--prefill-steps", "0",
                "--layers", "2", "--out", out.toString(), "-q"));
        Map<String, JsonNode> categories = new TreeMap<>();
        JSON.readTree(out.resolve("EXPECTED.json").toFile()).at("/phases/decode/categories")
                .forEach(c -> categories.put(c.get("id").asText(), c));
        // docs/synth.md: per layer 2 all-reduces, 2 attention kernels, 2 MoE GEMMs, 3 routing kernels; 5 NCCL
        // all-reduces outside the layers. The step's category times stay the reference's (11.17 ms all-reduce).
        assertEquals(2 * 2 + 5, categories.get("allreduce").get("calls_per_step").asInt());
        assertEquals(2 * 2, categories.get("attention").get("calls_per_step").asInt());
        assertEquals(2 * 2, categories.get("moe_gemm").get("calls_per_step").asInt());
        assertEquals(2 * 3, categories.get("routing").get("calls_per_step").asInt());
        assertEquals(11.17, categories.get("allreduce").get("ms_per_step").asDouble(), 0.25);
    }

    @Test
    void badUsageExitsWithTwo() throws IOException {
        String out = tmp.resolve("x").toString();
        assertEquals(2, Main.run("synth", "--preset", "dense-tp1", "--ranks", "2", "--steps", "1", "--out", out));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--scale", "attention"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--scale", "attention=fast"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--scale", "flash=1.2"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--scale", "gemm=-1"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--slow-rank", "2=1.2"), "rank out of range");
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--slow-rank", "1=0"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--slow-rank", "one=2"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "0", "--steps", "1", "--out", out));
        for (String layers : List.of("0", "62", "two")) {
            assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "1", "--steps", "1", "--out", out,
                    "--layers", layers), "--layers " + layers);
        }
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "0", "--out", out));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--target-size", "lots"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1"));
        // no unit, a rank beyond --ranks, not a rank list, an unknown unit
        for (String offset : List.of("1=250", "2=250us", "x=1ms", "1=2h")) {
            assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                    "--clock-offset", offset), offset);
        }
        // Real traces in --out are never overwritten.
        Path foreign = tmp.resolve("foreign");
        Files.createDirectories(foreign);
        Files.writeString(foreign.resolve("rank0.123.pt.trace.json"), "{}");
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "1", "--steps", "1", "--out",
                foreign.toString(), "-q"));
        assertEquals("{}", Files.readString(foreign.resolve("rank0.123.pt.trace.json")));
    }
}
