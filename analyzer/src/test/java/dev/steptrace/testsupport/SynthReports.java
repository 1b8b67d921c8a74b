package dev.steptrace.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.testing.JsonSchemas;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A synthetic capture written by {@code steptrace synth}, reported, with its generator's ground truth. */
public record SynthReports(JsonNode report, JsonNode expected) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Writes {@code dir/name} with {@code synth --preset preset --ranks ranks --steps steps --seed 3}
     * plus {@code extra}, reports it as JSON (checked against docs/report.schema.json), and reads both.
     */
    public static SynthReports of(Path dir, String name, String preset, int ranks, int steps, String... extra)
            throws Exception {
        Path capture = dir.resolve(name);
        List<String> synth = new ArrayList<>(List.of("synth", "--preset", preset, "--ranks", Integer.toString(ranks),
                "--steps", Integer.toString(steps), "--seed", "3", "--out", capture.toString(), "--quiet"));
        synth.addAll(List.of(extra));
        assertEquals(0, Main.run(synth.toArray(String[]::new)));
        Path out = dir.resolve(name + "-out");
        assertEquals(0, Main.run("report", capture.toString(), "--db", dir.resolve(name + ".duckdb").toString(),
                "--out", out.toString(), "--format", "json", "--quiet"));
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonSchemas.assertValid("report.schema.json", report);
        return new SynthReports(report, JSON.readTree(capture.resolve("EXPECTED.json").toFile()));
    }
}
