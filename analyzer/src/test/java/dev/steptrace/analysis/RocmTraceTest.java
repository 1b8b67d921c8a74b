package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.testing.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ROCm SGLang decode trace (AMD-AGI/TraceLens, MI300X): its kernels run on device 9 while its
 * deviceProperties lists id 0, an AMD Instinct MI300X (read with python's json module); it carries
 * SGLang's step[DECODE bs=32] annotation inside an execute_32_context_0(...)_generation_32(...) one.
 */
class RocmTraceTest {
    private static final String FILE = "tracelens_rocm_sglang_decode.json.gz";

    @TempDir
    Path tmp;

    @Test
    void devicesStepSourceAndClasses() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("rocm"));
        Files.copy(TestData.sharedOrSkip().resolve("compat-traces").resolve(FILE), dir.resolve(FILE));
        Path out = tmp.resolve("out");
        assertEquals(0, Main.run("report", dir.toString(), "--db", tmp.resolve("s.duckdb").toString(), "--out",
                out.toString(), "--quiet"));
        JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());

        assertEquals("[\"AMD Instinct MI300X\"]", report.at("/capture/devices").toString());
        String warnings = report.get("warnings").toString();
        assertTrue(warnings.contains("device_guessed") && warnings.contains("device 9")
                && warnings.contains("it lists id 0") && warnings.contains("taken to be AMD Instinct MI300X"), warnings);

        JsonNode decode = report.at("/phases/decode");
        assertEquals("sglang_annotation", decode.get("step_source").asText(), "SGLang wrote it");
        assertEquals(1, decode.get("steps").asDouble());
        decode.get("categories").forEach(c -> assertTrue(!c.get("id").asText().equals("routing"), "a dense model"));
        assertTrue(Files.readString(out.resolve("report.md")).contains("steps from SGLang step annotations"));
        assertTrue(Files.readString(out.resolve("report.md")).contains("AMD Instinct MI300X"));
    }
}
