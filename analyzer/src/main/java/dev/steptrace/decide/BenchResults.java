package dev.steptrace.decide;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.common.Messages;
import dev.steptrace.rules.Thresholds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * vLLM {@code bench serve --save-result} files: one result object per file (also a list of them, or
 * one per line as {@code --append-result} writes). Keeps the fields the memo shows; the throughput
 * plateau is the lowest concurrency after which output throughput grows less than a gain per doubling of
 * concurrency ({@link ThroughputPlateauCheck}).
 */
public final class BenchResults {
    private static final ObjectMapper JSON = new ObjectMapper();

    private BenchResults() {}

    /** Reads every file; a file that is not a bench result is a {@link ScenarioException} naming it and the field. */
    public static List<Decision.BenchRun> load(List<Path> files) {
        List<Decision.BenchRun> runs = new ArrayList<>();
        for (Path f : files) {
            runs.addAll(read(f));
        }
        runs.sort(Comparator.comparing((Decision.BenchRun r) -> r.maxConcurrency() == null ? Integer.MAX_VALUE : r.maxConcurrency())
                .thenComparing(Decision.BenchRun::file));
        return runs;
    }

    static List<Decision.BenchRun> read(Path file) {
        String name = file.toString();
        if (!Files.isRegularFile(file)) {
            throw new ScenarioException(name + ": no such bench result file");
        }
        List<JsonNode> docs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = JSON.readerFor(JsonNode.class).readValues(file.toFile())) {
            while (it.hasNextValue()) {
                JsonNode n = it.nextValue();
                if (n.isArray()) {
                    n.forEach(docs::add);
                } else {
                    docs.add(n);
                }
            }
        } catch (JsonProcessingException e) {
            throw new ScenarioException(name + ": not a vLLM bench serve result (not JSON: "
                    + Messages.firstLine(e.getOriginalMessage()) + ")", e);
        } catch (IOException e) {
            throw new ScenarioException(name + ": cannot read: " + e.getMessage(), e);
        }
        if (docs.isEmpty()) {
            throw new ScenarioException(name + ": empty; expected a vLLM bench serve result (vllm bench serve --save-result)");
        }
        List<Decision.BenchRun> out = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++) {
            JsonNode d = docs.get(i);
            String where = name + (docs.size() > 1 ? ": result " + (i + 1) : "");
            if (!d.isObject()) {
                throw new ScenarioException(where + ": expected a JSON object (a vLLM bench serve result)");
            }
            if (!d.has("output_throughput") && !d.has("request_throughput")) {
                throw new ScenarioException(where + ": output_throughput: missing; not a vLLM bench serve result "
                        + "(expected fields such as max_concurrency, request_throughput, output_throughput, mean_tpot_ms)");
            }
            String fileName = file.getFileName().toString();
            out.add(new Decision.BenchRun(docs.size() > 1 ? fileName + "#" + (i + 1) : fileName,
                    integer(d, "max_concurrency", where), number(d, "request_throughput", where),
                    number(d, "output_throughput", where), number(d, "total_token_throughput", where),
                    number(d, "mean_ttft_ms", where), number(d, "median_ttft_ms", where),
                    number(d, "mean_tpot_ms", where), number(d, "median_tpot_ms", where),
                    number(d, "median_itl_ms", where), integer(d, "completed", where),
                    d.hasNonNull("model_id") ? d.get("model_id").asText() : null));
        }
        return out;
    }

    private static Double number(JsonNode d, String field, String where) {
        JsonNode n = d.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isNumber()) {
            throw new ScenarioException(where + ": " + field + ": expected a number, got " + n);
        }
        return n.asDouble();
    }

    private static Integer integer(JsonNode d, String field, String where) {
        JsonNode n = d.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || n.asLong() < 0 || n.asLong() > Integer.MAX_VALUE) {
            throw new ScenarioException(where + ": " + field + ": expected a whole number, got " + n);
        }
        return n.asInt();
    }

    /**
     * The runs, with the plateau {@link ThroughputPlateauCheck} finds under {@code thresholds}; null when there are
     * none.
     */
    public static Decision.Bench summarize(List<Path> files, List<Decision.BenchRun> runs, Thresholds thresholds) {
        if (runs.isEmpty()) {
            return null;
        }
        ThroughputPlateauCheck.Plateau plateau = ThroughputPlateauCheck.plateau(runs, thresholds);
        return new Decision.Bench(files.stream().map(Path::toString).toList(), runs, plateau.concurrency(),
                plateau.evidence());
    }
}
