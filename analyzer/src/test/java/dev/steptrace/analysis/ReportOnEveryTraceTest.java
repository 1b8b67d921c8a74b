package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.testing.JsonSchemas;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every Kineto trace of every era we have — the project's sample captures and the shared sample and
 * compatibility traces — produces report.json (valid against its schema), report.html and report.md.
 */
class ReportOnEveryTraceTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @MethodSource("dev.steptrace.testing.TestData#projectKinetoTraces")
    void projectTrace(Path trace) throws Exception {
        reportAllThree(trace);
    }

    @ParameterizedTest
    @MethodSource("dev.steptrace.testing.TestData#sharedKinetoTraces")
    void sharedTrace(Path trace) throws Exception {
        reportAllThree(trace);
    }

    private void reportAllThree(Path trace) throws Exception {
        // One trace at a time: copy it alone into a capture directory of its own.
        Path capture = Files.createDirectories(tmp.resolve("capture"));
        Files.copy(trace, capture.resolve(trace.getFileName()));
        Path out = tmp.resolve("out");
        int code = Main.run("report", capture.toString(), "--db", tmp.resolve("s.duckdb").toString(),
                "--out", out.toString(), "--quiet");
        assertEquals(0, code, "report of " + trace.getFileName());
        for (String f : List.of("report.json", "report.html", "report.md")) {
            assertTrue(Files.size(out.resolve(f)) > 0, f + " of " + trace.getFileName());
        }
        JsonSchemas.assertValid("report.schema.json", new ObjectMapper().readTree(out.resolve("report.json").toFile()));
    }
}
