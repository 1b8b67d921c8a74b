package dev.steptrace.decide;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.analysis.StoredAnalysis;
import dev.steptrace.common.StepSource;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The batch size of a capture's steps in one phase, read from the steps the analysis already found
 * (the store's {@code steps} table: no second pass over the trace to find them), first that says:
 * <ol>
 *   <li>the step annotations: vLLM's {@code execute_context_N(tokens)_generation_M(tokens)} (N + M
 *       sequences), SGLang's {@code step[DECODE bs=32]};</li>
 *   <li>in decode, the input shapes of the step's first GEMM or embedding ({@code op_shapes.input_dims}):
 *       the tokens it runs on (the rows of a GEMM's first input, the indices of an embedding), one per
 *       sequence in a decode step. CUDA-graph replays carry no shapes.</li>
 * </ol>
 * Steps of different sizes give the most common size, and the memo says how many steps had it.
 *
 * @param batch    the most common batch size, or null when the capture does not say
 * @param steps    steps of the phase with that batch size (summed over ranks)
 * @param total    steps of the phase that said a batch size (summed over ranks)
 * @param evidence where it was read, with one example ({@code vLLM step annotation execute_...})
 */
public record CaptureBatch(Integer batch, int steps, int total, String evidence) {
    /** SGLang's step annotation with its batch size, {@code step[DECODE bs=8 ...]}: group 1. */
    static final Pattern SGLANG_BATCH = Pattern.compile("^step\\[\\w+ bs=(\\d+)");
    private static final ObjectMapper JSON = new ObjectMapper();

    public static final CaptureBatch UNKNOWN = new CaptureBatch(null, 0, 0, null);

    public static CaptureBatch of(StoredAnalysis analysis, String phase) throws SQLException {
        CaptureBatch annotated = fromAnnotations(analysis, phase);
        if (annotated.batch() != null || !"decode".equals(phase)) {
            return annotated;
        }
        return fromShapes(analysis, phase);
    }

    private static CaptureBatch fromAnnotations(StoredAnalysis analysis, String phase) throws SQLException {
        Counts counts = new Counts();
        // Per step, the first annotation that says.
        String[] done = {null};
        analysis.query("batch-annotations", Map.of("phase", phase), rs -> {
            String step = rs.getInt(1) + "/" + rs.getInt(2);
            if (step.equals(done[0])) {
                return;
            }
            String name = rs.getString(3);
            Matcher v = StepSource.VLLM_STEP.matcher(name);
            Matcher g = SGLANG_BATCH.matcher(name);
            if (v.matches()) {
                counts.add(Long.parseLong(v.group(1)) + Long.parseLong(v.group(3)), 1, "vLLM step annotation " + name);
                done[0] = step;
            } else if (g.find()) {
                counts.add(Long.parseLong(g.group(1)), 1, "SGLang step annotation " + name);
                done[0] = step;
            }
        });
        return counts.best();
    }

    private static CaptureBatch fromShapes(StoredAnalysis analysis, String phase) throws SQLException {
        Counts counts = new Counts();
        analysis.query("batch-shapes", Map.of("phase", phase), rs -> {
            Long tokens = tokens(rs.getString(1), rs.getString(2));
            if (tokens != null) {
                counts.add(tokens, 1, "input shapes: " + rs.getString(1) + " " + rs.getString(2)
                        + ", the first GEMM or embedding of the step (" + tokens + " tokens, one per sequence in"
                        + " a decode step)");
            }
        });
        return counts.best();
    }

    /** The tokens an op runs on: an embedding's index count, else the rows of a GEMM's first input. */
    static Long tokens(String op, String inputDims) {
        try {
            JsonNode dims = JSON.readTree(inputDims);
            JsonNode tokens = "aten::embedding".equals(op) ? dims.path(1) : dims.path(0);
            int rows = "aten::embedding".equals(op) ? tokens.size() : tokens.size() - 1;
            if (!tokens.isArray() || rows < 1) {
                return null;
            }
            long n = 1;
            for (int i = 0; i < rows; i++) {
                if (!tokens.get(i).canConvertToLong() || tokens.get(i).asLong() <= 0) {
                    return null;
                }
                n *= tokens.get(i).asLong();
            }
            return n;
        } catch (java.io.IOException e) {
            return null; // not JSON: no shape to read
        }
    }

    /** Steps per batch size, with an example of where each size was read. */
    private static final class Counts {
        private final Map<Integer, int[]> counts = new TreeMap<>();
        private final Map<Integer, String> examples = new TreeMap<>();

        void add(long batch, int steps, String evidence) {
            if (batch <= 0 || batch > Integer.MAX_VALUE) {
                return;
            }
            counts.computeIfAbsent((int) batch, k -> new int[1])[0] += steps;
            examples.putIfAbsent((int) batch, evidence);
        }

        CaptureBatch best() {
            if (counts.isEmpty()) {
                return UNKNOWN;
            }
            int total = counts.values().stream().mapToInt(c -> c[0]).sum();
            Map.Entry<Integer, int[]> best = null;
            for (Map.Entry<Integer, int[]> e : counts.entrySet()) {
                if (best == null || e.getValue()[0] > best.getValue()[0]) {
                    best = e;
                }
            }
            return new CaptureBatch(best.getKey(), best.getValue()[0], total, examples.get(best.getKey()));
        }
    }
}
