package dev.steptrace.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same seeded workload written as Kineto JSON and as Nsight Systems SQLite exports gives the same
 * report: per phase, the same steps and step source, and per category the same milliseconds and calls
 * per step (within 0.1%), also equal to EXPECTED.json.
 */
class SynthNsysParityTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"moe-tp8-graph", "moe-tp8-eager"})
    void kinetoAndNsysSqliteGiveTheSameCategoriesAndCalls(String preset) throws Exception {
        Path kineto = synth(preset, "kineto");
        Path nsys = synth(preset, "nsys-sqlite");
        assertEquals(List.of("EXPECTED.json", "rank0.sqlite", "rank1.sqlite"), names(nsys));
        JsonNode a = report(kineto);
        JsonNode b = report(nsys);
        assertEquals("kineto", a.at("/capture/format").asText());
        assertEquals("nsys-sqlite", b.at("/capture/format").asText());
        assertEquals(a.at("/capture/ranks"), b.at("/capture/ranks"));
        assertEquals(fieldNames(a.get("phases")), fieldNames(b.get("phases")));
        JsonNode expected = JSON.readTree(nsys.resolve("EXPECTED.json").toFile());
        assertEquals("nsys-sqlite", expected.get("format").asText());
        for (String phase : fieldNames(a.get("phases")).keySet()) {
            JsonNode pa = a.at("/phases/" + phase);
            JsonNode pb = b.at("/phases/" + phase);
            assertEquals(pa.get("steps"), pb.get("steps"), phase);
            assertEquals(pa.get("step_source").asText(), pb.get("step_source").asText(), phase);
            Map<String, double[]> ca = categories(pa);
            Map<String, double[]> cb = categories(pb);
            assertEquals(ca.keySet(), cb.keySet(), phase);
            for (String id : ca.keySet()) {
                assertClose(ca.get(id)[0], cb.get(id)[0], phase + " " + id + " ms/step");
                assertClose(ca.get(id)[1], cb.get(id)[1], phase + " " + id + " calls/step");
            }
            Map<String, double[]> truth = categories(expected.at("/phases/" + phase));
            for (String id : truth.keySet()) {
                assertClose(truth.get(id)[0], cb.get(id)[0], "EXPECTED " + phase + " " + id + " ms/step");
                assertClose(truth.get(id)[1], cb.get(id)[1], "EXPECTED " + phase + " " + id + " calls/step");
            }
            assertClose(pa.at("/kernel_ms_per_step/mean").asDouble(), pb.at("/kernel_ms_per_step/mean").asDouble(),
                    phase + " kernel ms/step");
        }
    }

    @Test
    void theNsysFilesHoldTheDocumentedTables() throws Exception {
        Path nsys = synth("moe-tp8-graph", "nsys-sqlite");
        Cli.assertExit(0, Cli.ingestJson(tmp.resolve("check.duckdb"), nsys));
        try (StoreDb s = StoreDb.open(tmp.resolve("check.duckdb"))) {
            assertEquals("file_name", s.string("SELECT DISTINCT rank_source FROM files"));
            // Graph replays (node mode): every kernel of a decode step shares its cudaGraphLaunch's correlation.
            assertEquals(0, s.count("SELECT count(*) FROM kernels k WHERE graph_node_id IS NOT NULL AND NOT EXISTS ("
                    + " SELECT 1 FROM runtime_calls l WHERE l.file_id = k.file_id AND l.correlation = k.correlation"
                    + " AND l.name = 'cudaGraphLaunch')"));
            assertTrue(s.count("SELECT count(*) FROM kernels WHERE graph_node_id IS NOT NULL") > 0);
            assertEquals(List.of("cuLaunchKernelEx", "cudaGraphLaunch", "cudaLaunchKernel",
                            "cudaMemcpyAsync", "cudaStreamSynchronize"),
                    s.strings("SELECT DISTINCT name FROM runtime_calls ORDER BY name"));
            assertEquals(List.of("Memcpy DtoH (Device -> Pinned)"),
                    s.strings("SELECT DISTINCT name FROM gpu_events WHERE kind = 'memcpy'"));
            assertEquals(List.of("NCCL"), s.strings("SELECT DISTINCT nvtx_domain FROM cpu_ops WHERE nvtx_domain IS NOT NULL"));
        }
    }

    private Path synth(String preset, String format) throws Exception {
        Path out = tmp.resolve(preset + "-" + format);
        Cli.Result r = Cli.run("synth", "--preset", preset, "--ranks", "2", "--steps", "3", "--seed", "7",
                "--format", format, "--out", out.toString(), "--quiet");
        Cli.assertExit(0, r);
        return out;
    }

    private JsonNode report(Path dir) throws Exception {
        Path out = tmp.resolve("report-" + dir.getFileName());
        Cli.Result r = Cli.run("report", dir.toString(), "--db", tmp.resolve("s.duckdb").toString(), "--out",
                out.toString(), "--format", "json", "--quiet");
        assertEquals(0, r.exit(), r::describe);
        return JSON.readTree(out.resolve("report.json").toFile());
    }

    private static void assertClose(double expected, double actual, String what) {
        assertTrue(Math.abs(expected - actual) <= 0.001 * Math.abs(expected) + 1e-12,
                what + ": " + expected + " vs " + actual);
    }

    /** id → {ms per step, calls per step}, from a report phase or an EXPECTED.json phase. */
    private static Map<String, double[]> categories(JsonNode phase) {
        Map<String, double[]> m = new TreeMap<>();
        for (JsonNode c : phase.get("categories")) {
            m.put(c.get("id").asText(), new double[] {c.get("ms_per_step").asDouble(), c.get("calls_per_step").asDouble()});
        }
        return m;
    }

    private static Map<String, Boolean> fieldNames(JsonNode n) {
        Map<String, Boolean> m = new TreeMap<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            m.put(it.next(), true);
        }
        return m;
    }

    private static List<String> names(Path dir) throws Exception {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
