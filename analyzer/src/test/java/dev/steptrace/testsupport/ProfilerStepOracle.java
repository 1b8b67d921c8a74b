package dev.steptrace.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * Per-step GPU time read from a gzipped Kineto trace as a JSON tree, independently of the store: a GPU
 * event belongs to the ProfilerStep range that contains its launch (the runtime call with the same
 * correlation id; under CUDA graphs the step's cudaGraphLaunch shares it with the replayed kernels).
 */
public final class ProfilerStepOracle {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ProfilerStepOracle() {}

    /** Per ProfilerStep range, in trace order: the summed duration (ms) of the GPU events {@code counted} accepts. */
    public static List<Double> msPerStep(Path trace, Predicate<JsonNode> counted) throws Exception {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = JSON.readTree(in);
        }
        List<double[]> steps = new ArrayList<>();
        Map<Long, Double> launchTs = new HashMap<>();
        for (JsonNode e : root.get("traceEvents")) {
            String cat = e.path("cat").asText();
            if (cat.equals("user_annotation") && e.path("name").asText().startsWith("ProfilerStep#")) {
                double ts = new BigDecimal(e.get("ts").asText()).doubleValue();
                steps.add(new double[] {ts, ts + new BigDecimal(e.get("dur").asText()).doubleValue(), 0});
            } else if (cat.equals("cuda_runtime") && e.path("args").has("correlation")) {
                launchTs.put(e.get("args").get("correlation").asLong(), e.get("ts").asDouble());
            }
        }
        for (JsonNode e : root.get("traceEvents")) {
            if (!counted.test(e)) {
                continue;
            }
            Double launch = launchTs.get(e.path("args").path("correlation").asLong(-1));
            for (double[] s : steps) {
                if (launch != null && launch >= s[0] && launch < s[1]) {
                    s[2] += new BigDecimal(e.get("dur").asText()).doubleValue() / 1000;
                }
            }
        }
        return steps.stream().map(s -> s[2]).toList();
    }
}
