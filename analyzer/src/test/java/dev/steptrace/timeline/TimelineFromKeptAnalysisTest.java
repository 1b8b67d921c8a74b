package dev.steptrace.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.steptrace.api.Capture;
import dev.steptrace.api.Steptrace;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.TestData;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/**
 * The timeline is written from the analysis the store keeps: its steps, their numbers and classes come
 * from the analysis tables, and only the chosen steps' operations are given their step again, from the
 * events in those steps' time ranges. What it gives each step must be what the analysis counted for
 * that step over the whole capture: the operations' durations and count, and their time by category.
 */
class TimelineFromKeptAnalysisTest {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
    private static final Set<String> GPU_CATS = Set.of("kernel", "gpu_memcpy", "gpu_memset");

    @TempDir
    Path tmp;

    /**
     * Every step of a phase written, each step's operations (by the step and rank in their args) summed:
     * their durations are the kept kernel time, their count the kept calls, their time per category the
     * kept category times. The captures: the graph sample (steps from launches, kernels classed from
     * their MoE context), HTA's CUDA-graph trace (868 operations in steps whose launch the trace does not
     * hold: by the step's GPU range) and AlexNet trace (steps from GPU bursts).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sample:h200-tp2-moe-decode/graph-nccl-ll",
            "shared:compat-traces/hta_2023_cudagraph_ws16_rank0.json.gz", "small:hta_alexnet_cuda_sync.json.gz"})
    void eachStepsOperationsAreWhatTheAnalysisCounted(String which) throws Exception {
        Path capture = copy(which);
        try (Steptrace st = Steptrace.openTraces(capture, tmp.resolve("st.duckdb")); Capture c = st.capture()) {
            String phase = c.phases().get(0);
            Table steps = c.steps(phase);
            List<Integer> all = new ArrayList<>(new TreeSet<>(steps.intColumn("phase_index").asList()));
            TimelineResult written = c.writeTimeline(tmp.resolve("out"),
                    new TimelineOptions(phase, all, false, null, TimelineOptions.Alignment.NONE));
            JsonNode doc = read(written.file());
            Map<Integer, Integer> rankOfPid = new HashMap<>();
            doc.at("/steptrace/processes").forEach(p -> rankOfPid.put(p.get("pid").asInt(), p.get("rank").asInt()));
            Map<String, long[]> opsOfStep = new TreeMap<>(); // rank/step -> ns, calls
            Map<String, Long> opsOfCategory = new TreeMap<>(); // rank/step/category -> ns
            int ops = 0;
            for (JsonNode e : doc.get("traceEvents")) {
                if ("X".equals(e.path("ph").asText()) && GPU_CATS.contains(e.path("cat").asText())) {
                    String step = rankOfPid.get(e.get("pid").asInt()) + "/" + e.at("/args/step").asInt();
                    long ns = nanos(e.at("/args/duration_us"));
                    long[] v = opsOfStep.computeIfAbsent(step, k -> new long[2]);
                    v[0] += ns;
                    v[1]++;
                    opsOfCategory.merge(step + "/" + e.at("/args/category").asText(), ns, Long::sum);
                    ops++;
                }
            }
            assertTrue(ops > 0, "operations written");
            Map<String, long[]> kept = new TreeMap<>();
            for (Row r : steps) {
                if (r.getLong("calls") > 0) {
                    kept.put(r.getInt("rank") + "/" + r.getInt("phase_index"),
                            new long[] {Math.round(r.getDouble("kernel_ms") * 1e6), r.getLong("calls")});
                }
            }
            assertEquals(kept.keySet(), opsOfStep.keySet(), "the steps with operations");
            kept.forEach((step, v) -> {
                assertEquals(v[0], opsOfStep.get(step)[0], "kernel ns of rank/step " + step);
                assertEquals(v[1], opsOfStep.get(step)[1], "calls of rank/step " + step);
            });
            Map<String, Long> keptCategories = new TreeMap<>();
            for (Row r : c.stepCategories(phase)) {
                keptCategories.put(r.getInt("rank") + "/" + r.getInt("phase_index") + "/" + r.getString("category"),
                        Math.round(r.getDouble("ms") * 1e6));
            }
            assertEquals(keptCategories, opsOfCategory, "time per category, operations classed as the analysis did");
        }
    }

    @Test
    void aKeptAnalysisIsReadNotMadeAgain() throws Exception {
        Path capture = copy("sample:h200-tp2-moe-decode/graph-nccl-ll");
        Path db = tmp.resolve("st.duckdb");
        try (Steptrace st = Steptrace.openTraces(capture, db)) {
            st.capture().close();
        }
        // A kept number the traces do not say: the timeline's step slices show it only if they read it.
        try (Connection c = DuckDb.connect(db, new Properties()); Statement s = c.createStatement()) {
            s.execute("UPDATE step_metrics SET kernel_ns = 1234567 WHERE phase = 'decode' AND phase_index = 2");
        }
        try (Steptrace st = Steptrace.open(db); Capture c = st.capture()) {
            JsonNode doc = read(c.writeTimeline(tmp.resolve("out"),
                    new TimelineOptions("decode", List.of(2), false, null, null)).file());
            int slices = 0;
            for (JsonNode e : doc.get("traceEvents")) {
                if ("step".equals(e.path("cat").asText())) {
                    assertEquals(new BigDecimal("1.234567"), e.at("/args/kernel_ms").decimalValue(), e.toString());
                    slices++;
                }
            }
            assertEquals(2, slices, "one step slice per rank");
        }
    }

    private Path copy(String which) throws Exception {
        String[] w = which.split(":", 2);
        Path source = (switch (w[0]) {
            case "sample" -> TestData.sampleTraces();
            case "shared" -> TestData.sharedOrSkip();
            default -> TestData.smallTraces();
        }).resolve(w[1]);
        Path target = tmp.resolve("capture");
        Files.createDirectories(target);
        if (Files.isDirectory(source)) {
            for (Path f : TestData.kinetoTraces(source)) {
                Files.copy(f, target.resolve(f.getFileName()));
            }
        } else {
            Files.copy(source, target.resolve(source.getFileName()));
        }
        return target;
    }

    private static JsonNode read(Path file) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return JSON.readTree(in);
        }
    }

    private static long nanos(JsonNode micros) {
        return micros.decimalValue().movePointRight(3).longValueExact();
    }
}
