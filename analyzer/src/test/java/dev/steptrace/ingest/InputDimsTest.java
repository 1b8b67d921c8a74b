package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cpu_ops.input_dims}: the Input Dims of the GEMM and embedding CPU ops, and of no other op, as
 * a plain tree parse of the eager sample's rank 0 reads them.
 */
class InputDimsTest {
    private static final Set<String> OPS = Set.of("aten::mm", "aten::addmm", "aten::matmul", "aten::linear", "aten::bmm",
            "aten::embedding");

    @TempDir
    Path tmp;

    @Test
    void keptForTheGemmAndEmbeddingOpsOnly() throws Exception {
        Path trace;
        try (var files = Files.list(TestData.sampleTraces().resolve("h200-tp2-moe-eager/batch16-prefill256"))) {
            trace = files.filter(f -> f.getFileName().toString().startsWith("rank0")).findFirst().orElseThrow();
        }
        List<String> expected = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            for (JsonNode e : new ObjectMapper().readTree(in).get("traceEvents")) {
                if ("cpu_op".equals(e.path("cat").asText()) && OPS.contains(e.path("name").asText())
                        && e.path("args").has("Input Dims")) {
                    expected.add(e.path("name").asText() + " " + e.path("args").get("Input Dims"));
                }
            }
        }
        Path dir = Files.createDirectories(tmp.resolve("one"));
        Files.copy(trace, dir.resolve(trace.getFileName()));
        Cli.assertExit(0, Cli.run("ingest", dir.toString(), "--db", tmp.resolve("s.duckdb").toString(), "--quiet"));
        try (StoreDb s = StoreDb.open(tmp.resolve("s.duckdb"))) {
            List<String> stored = s.strings("SELECT name || ' ' || input_dims FROM cpu_events WHERE input_dims IS NOT NULL"
                    + " ORDER BY ts_ns, name");
            assertEquals(expected.size(), stored.size());
            assertEquals(expected.stream().sorted().toList(), stored.stream().sorted().toList());
            assertEquals(0, s.count("SELECT count(*) FROM cpu_events WHERE input_dims IS NOT NULL AND name NOT IN"
                    + " ('aten::mm', 'aten::addmm', 'aten::matmul', 'aten::linear', 'aten::bmm', 'aten::embedding')"));
        }
    }
}
