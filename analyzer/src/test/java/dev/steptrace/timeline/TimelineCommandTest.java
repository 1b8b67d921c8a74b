package dev.steptrace.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code steptrace timeline} on the command line: choices, exit codes and one-line errors. */
class TimelineCommandTest {
    @TempDir
    static Path tmp;
    static Path capture;
    static Path db;

    @BeforeAll
    static void synthesize() {
        capture = tmp.resolve("small");
        db = tmp.resolve("st.duckdb");
        Cli.Result synth = Cli.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "4",
                "--prefill-steps", "1", "--out", capture.toString(), "-q");
        assertEquals(0, synth.exit(), synth::describe);
    }

    /** stderr without ingest's note that synth's EXPECTED.json beside the traces is no trace. */
    private static List<String> messages(Cli.Result r) {
        return r.err().lines().filter(l -> !l.contains("EXPECTED.json")).toList();
    }

    private static Cli.Result timeline(String... args) {
        String[] all = Stream.concat(Stream.of("timeline", capture.toString(), "--db", db.toString()), Stream.of(args))
                .toArray(String[]::new);
        return Cli.run(all);
    }

    @Test
    void choosesStepsRanksAndFormat() throws Exception {
        Path plain = tmp.resolve("out/two.json");
        Cli.Result r = timeline("--phase", "decode", "--steps", "1,3", "--ranks", "1", "--out", plain.toString(), "-q");
        Cli.assertExit(0, r);
        assertEquals(List.of(), messages(r), "--quiet: no summary on stderr");
        JsonNode doc = new ObjectMapper().readTree(plain.toFile());
        assertEquals(List.of(1, 3), List.of(doc.at("/steptrace/steps/0").asInt(), doc.at("/steptrace/steps/1").asInt()));
        assertEquals(1, doc.at("/steptrace/processes").size(), "rank 1 only");
        assertEquals(1, doc.at("/steptrace/processes/0/rank").asInt());
        long stepSlices = 0;
        for (JsonNode e : doc.get("traceEvents")) {
            if (e.path("cat").asText().equals("step")) {
                stepSlices++;
                assertTrue(List.of(1, 3).contains(e.at("/args/step").asInt()), e.toString());
            }
        }
        assertEquals(2, stepSlices);
        try (Stream<Path> files = Files.list(plain.getParent())) {
            assertEquals(List.of(plain), files.toList(), "only the file: no temporary file left");
        }

        // default: the slowest decode step and its neighbours, in a file named after them
        Cli.Result d = timeline("--out", tmp.resolve("default.json.gz").toString());
        Cli.assertExit(0, d);
        assertTrue(d.err().matches("(?s).*decode steps? [0-9, -]+ \\(slowest decode step: \\d+, [0-9.]+ ms on rank \\d\\).*"),
                d::describe);
    }

    @Test
    void badOptionsAreUsageErrors() {
        for (String[] args : List.of(new String[] {"--steps", "two"}, new String[] {"--steps", "3-1"},
                new String[] {"--ranks", "-1"}, new String[] {"--align", "clocks"}, new String[] {"--phase", "warmup"})) {
            Cli.Result r = timeline(args);
            assertEquals(2, r.exit(), r::describe);
        }
    }

    @Test
    void whatTheCaptureLacksIsOneLine() {
        for (String[] args : List.of(new String[] {"--steps", "9"}, new String[] {"--ranks", "5"},
                new String[] {"--phase", "mixed"})) {
            Cli.Result r = timeline(args);
            Cli.assertExit(1, r);
            assertEquals(1, messages(r).size(), r::describe);
        }
        Cli.Result steps = timeline("--steps", "9");
        assertTrue(steps.err().contains("no decode step 9: the decode steps are 0-3"), steps::describe);
        Cli.Result missing = Cli.run("timeline", tmp.resolve("nowhere").toString(), "--db", db.toString());
        Cli.assertExit(1, missing);
    }
}
