package dev.steptrace.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * Per-step GPU events read from a gzipped Kineto trace as a JSON tree, independently of the store: a GPU
 * event belongs to the ProfilerStep range that contains its launch (the runtime or driver call with the
 * same correlation id; under CUDA graphs the step's cudaGraphLaunch shares it with the replayed kernels).
 */
public final class ProfilerStepOracle {
    /** Decimals as BigDecimal: timestamps keep every digit of their text. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    private ProfilerStepOracle() {}

    /** A GPU event of the trace: times in epoch nanoseconds, exact from the decimal text. */
    public record GpuEvent(String cat, String name, long tsNs, long durNs, JsonNode args) {}

    /** Per ProfilerStep range, in trace order: the summed duration (ms) of the GPU events {@code counted} accepts. */
    public static List<Double> msPerStep(Path trace, Predicate<JsonNode> counted) throws Exception {
        return eventsPerStep(trace, counted).stream()
                .map(events -> events.stream().mapToLong(GpuEvent::durNs).sum() / 1e6)
                .toList();
    }

    /** Per ProfilerStep range, in trace order: the GPU events {@code counted} accepts that it launched. */
    public static List<List<GpuEvent>> eventsPerStep(Path trace, Predicate<JsonNode> counted) throws Exception {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = JSON.readTree(in);
        }
        long base = root.path("baseTimeNanoseconds").asLong(0);
        List<long[]> ranges = new ArrayList<>();
        Map<Long, Long> launchTs = new HashMap<>();
        for (JsonNode e : root.get("traceEvents")) {
            String cat = e.path("cat").asText();
            if (cat.equals("user_annotation") && e.path("name").asText().startsWith("ProfilerStep#")) {
                long ts = nanos(e.get("ts"));
                ranges.add(new long[] {ts, ts + nanos(e.get("dur"))});
            } else if ((cat.equals("cuda_runtime") || cat.equals("cuda_driver")) && e.path("args").has("correlation")) {
                launchTs.put(e.get("args").get("correlation").asLong(), nanos(e.get("ts")));
            }
        }
        List<List<GpuEvent>> steps = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            steps.add(new ArrayList<>());
        }
        for (JsonNode e : root.get("traceEvents")) {
            if (!counted.test(e)) {
                continue;
            }
            Long launch = launchTs.get(e.path("args").path("correlation").asLong(-1));
            for (int i = 0; i < ranges.size(); i++) {
                if (launch != null && launch >= ranges.get(i)[0] && launch < ranges.get(i)[1]) {
                    steps.get(i).add(new GpuEvent(e.path("cat").asText(), e.path("name").asText(),
                            base + nanos(e.get("ts")), nanos(e.get("dur")), e.path("args")));
                }
            }
        }
        return steps;
    }

    /** Microseconds as written (decimal text) to nanoseconds. */
    private static long nanos(JsonNode micros) {
        return micros.decimalValue().movePointRight(3).longValueExact();
    }
}
