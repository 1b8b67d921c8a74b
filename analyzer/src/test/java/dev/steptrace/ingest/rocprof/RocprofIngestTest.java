package dev.steptrace.ingest.rocprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rocprofv3 kernel traces: the real outputs under {@code test/resources/rocprofv3} (README there says
 * where each comes from). Expected values are read off the CSV lines by hand (durations are
 * End_Timestamp - Start_Timestamp of each line).
 */
class RocprofIngestTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private Path copy(String sample) throws Exception {
        Path from = TestData.repoRoot().resolve("analyzer/src/test/resources/rocprofv3").resolve(sample);
        Path to = Files.createDirectories(tmp.resolve(sample));
        try (var files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
        return to;
    }

    @Test
    void kernelsAndCopiesOfOneProcessAreOneFile() throws Exception {
        Path cap = copy("vector-ops-stream-ids");
        Path db = tmp.resolve("s.duckdb");
        Cli.Result r = Cli.ingestJson(db, cap);
        Cli.assertExit(0, r);
        JsonNode files = JSON.readTree(r.out()).get("files");
        Map<String, String> status = new TreeMap<>();
        for (JsonNode f : files) {
            status.put(Path.of(f.get("path").asText()).getFileName().toString(),
                    f.get("status").asText() + " " + (f.hasNonNull("reason") ? f.get("reason").asText() : ""));
        }
        assertEquals(Map.of("kernel_trace.csv", "ingested ",
                "memory_copy_trace.csv", "skipped rocprofv3 memory copy trace: read with kernel_trace.csv"), status);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals("rocprofv3-csv|8|4|0|0", s.string(
                    "SELECT concat_ws('|', format, n_kernel, n_memcpy, n_runtime, n_dropped) FROM files"));
            // Lines 2-9 of kernel_trace.csv: agent 2, streams 1 (lines 2-5) and 2 (lines 6-9).
            assertEquals(List.of(
                    "1|1937|void addition_kernel<float>(float*, float const*, float const*, int, int)|16157",
                    "1|1945|subtract_kernel(float*, float const*, float const*, int, int)|10464",
                    "1|1953|multiply_kernel(float*, float const*, float const*, int, int)|10183",
                    "1|1961|divide_kernel(float*, float const*, float const*, int, int)|10103",
                    "2|1969|void addition_kernel<float>(float*, float const*, float const*, int, int)|12830",
                    "2|1977|subtract_kernel(float*, float const*, float const*, int, int)|10905",
                    "2|1985|multiply_kernel(float*, float const*, float const*, int, int)|11145",
                    "2|1993|divide_kernel(float*, float const*, float const*, int, int)|11547"),
                    s.strings("SELECT concat_ws('|', g.stream, g.correlation, n.name, g.dur_ns) FROM gpu_ops g"
                            + " JOIN names n USING (file_id, name_id) WHERE g.kind = 'kernel' ORDER BY g.ts_ns"));
            assertEquals(List.of("2"), s.strings("SELECT DISTINCT device FROM gpu_ops"));
            // Grid_Size counts work-items: 1024 x 1024 items in workgroups of 64 x 1 x 1 are 16 x 1024 blocks.
            assertEquals(List.of("16|1024|1|64|1|1"), s.strings("SELECT DISTINCT concat_ws('|', grid_x, grid_y, grid_z,"
                    + " block_x, block_y, block_z) FROM gpu_ops WHERE kind = 'kernel'"));
            assertEquals(2414192765353337L, s.count("SELECT min(ts_ns) FROM gpu_ops WHERE kind = 'kernel'"));
            // memory_copy_trace.csv: four host-to-device copies onto agent 2.
            assertEquals(List.of("Memcpy HtoD|2|1|101594", "Memcpy HtoD|2|1|99629", "Memcpy HtoD|2|2|101673",
                    "Memcpy HtoD|2|2|99870"), s.strings("SELECT concat_ws('|', n.name, g.device, g.stream, g.dur_ns)"
                    + " FROM gpu_ops g JOIN names n USING (file_id, name_id) WHERE g.kind = 'memcpy' ORDER BY g.ts_ns"));
            assertEquals(2414192684609085L, s.count("SELECT first_ts_ns FROM files"));
            assertEquals(2414192765784969L, s.count("SELECT last_ts_ns FROM files"));
        }
    }

    @Test
    void everyHeaderGenerationLoads() throws Exception {
        Path db = tmp.resolve("s.duckdb");
        Path older = copy("vector-ops-2024-10");
        Path agents = copy("agent-names");
        Cli.assertExit(0, Cli.ingestJson(db, older, agents));
        try (StoreDb s = StoreDb.open(db)) {
            // No Stream_Id column: the queue is the stream. Queues of lines 2-8: 1, 2, 1, 3, 4, 2, 1.
            assertEquals(List.of("1|1|3", "1|2|2", "1|3|1", "1|4|1"), s.strings("SELECT concat_ws('|', device, stream, n)"
                    + " FROM (SELECT device, stream, count(*) AS n FROM gpu_ops g JOIN files f USING (file_id)"
                    + " WHERE f.path LIKE '%2024-10%' GROUP BY 1, 2) ORDER BY stream"));
            // "Agent 4", streams 2 and 3; the last line has no line end.
            assertEquals(List.of("4|2|2|24240", "4|3|2|19800"), s.strings("SELECT concat_ws('|', device, stream, n, d)"
                    + " FROM (SELECT device, stream, count(*) AS n, sum(dur_ns) AS d FROM gpu_ops g JOIN files f"
                    + " USING (file_id) WHERE f.path LIKE '%agent-names%' GROUP BY 1, 2) ORDER BY stream"));
        }
    }

    @Test
    void reportWorksWithoutStepAnnotations() throws Exception {
        Path cap = copy("vector-ops-stream-ids");
        Path out = tmp.resolve("out");
        Cli.Result r = Cli.run("report", cap.toString(), "--db", tmp.resolve("s.duckdb").toString(), "--out",
                out.toString(), "--quiet");
        Cli.assertExit(0, r);
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonSchemas.assertValid("report.schema.json", report);
        assertEquals("rocprofv3-csv", report.at("/capture/format").asText());
        JsonNode phase = report.at("/phases/unknown");
        // No annotations and no launches: steps are bursts of GPU work between idle gaps longer than
        // max(200 us, 10 x the median gap) (docs/formats.md, rocprofv3 steps). The 11 gaps between the 12 operations, by
        // hand: 163162, 21.46 M, 53820, 58.66 M ns, then 55368, 52160, 47950, 53122, 36845, 46226, 46627
        // between the kernels; median 53122, threshold 0.53 ms: the 21.46 and 58.66 ms gaps split 3 steps.
        assertEquals("gap", phase.get("step_source").asText());
        assertEquals(3, phase.get("steps").asInt());
        double kernelMs = (16157 + 10464 + 10183 + 10103 + 12830 + 10905 + 11145 + 11547) / 1e6;
        double copyMs = (101594 + 99629 + 101673 + 99870) / 1e6;
        Map<String, Double> msPerStep = new TreeMap<>();
        for (JsonNode c : phase.get("categories")) {
            msPerStep.put(c.get("id").asText(), c.get("ms_per_step").asDouble());
        }
        assertEquals(copyMs / 3, msPerStep.get("memcpy"), 1e-9);
        assertEquals(kernelMs / 3, msPerStep.get("other"), 1e-9);
    }

    @Test
    void rocmKernelNamesAreClassifiedByTheTaxonomy() throws Exception {
        // The real header of vector-ops-stream-ids, with kernel names whose rules taxonomy.yaml cites.
        List<String> lines = new ArrayList<>(Files.readAllLines(TestData.repoRoot().resolve(
                "analyzer/src/test/resources/rocprofv3/vector-ops-stream-ids/kernel_trace.csv")).subList(0, 1));
        String[] names = {"_ZN5aiter47fmoe_bf16_blockscaleFp8_g1u1_vs_silu_1tg_32x128E",
            "_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelEEEvT0_",
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"};
        long t = 1_000_000_000L;
        for (int i = 0; i < names.length; i++) {
            lines.add("\"KERNEL_DISPATCH\",2,1,1,7,%d,%d,\"%s\",%d,%d,%d,0,0,256,1,1,4096,1,1"
                    .formatted(i + 1, i + 1, names[i], i + 1, t + i * 1000, t + i * 1000 + 500));
        }
        Path cap = Files.createDirectories(tmp.resolve("rocm"));
        Files.write(cap.resolve("rank0_kernel_trace.csv"), lines, StandardCharsets.UTF_8);
        Path out = tmp.resolve("out");
        Cli.assertExit(0, Cli.run("report", cap.toString(), "--db", tmp.resolve("s.duckdb").toString(), "--out",
                out.toString(), "--quiet", "--format", "json"));
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertEquals(List.of(0), List.of(report.at("/capture/ranks/0").asInt()), "rank from the file name");
        Map<String, String> rules = new TreeMap<>();
        for (JsonNode k : report.at("/phases/unknown/top_kernels")) {
            rules.put(k.get("name").asText(), k.get("rule").asText());
        }
        assertEquals(Map.of(names[0], "moe_gemm.aiter.asm", names[1], "attention.ck_tile",
                names[2], "comm.nccl.allreduce"), rules);
    }

    @Test
    void aBadRowCostsItselfAndTheFileIsPartial() throws Exception {
        Path cap = copy("vector-ops-2024-10");
        Path trace = cap.resolve("kernel_trace.csv");
        List<String> lines = new ArrayList<>(Files.readAllLines(trace));
        lines.set(3, lines.get(3).replace("8819330200120456", "88193302001204x6"));
        Files.write(trace, lines);
        Path db = tmp.resolve("s.duckdb");
        Cli.Result r = Cli.ingestJson(db, cap);
        Cli.assertExit(0, r);
        JsonNode f = JSON.readTree(r.out()).get("files").get(0);
        assertEquals("partial", f.get("status").asText());
        assertEquals("kernel_trace.csv line 4: '88193302001204x6' is not an integer (row skipped)",
                f.get("reason").asText());
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(6, s.count("SELECT count(*) FROM gpu_ops"));
        }
    }

    @Test
    void aRocpdDatabaseIsNamedNotTakenForAnNsysExport() throws Exception {
        Path cap = Files.createDirectories(tmp.resolve("rocpd"));
        Path file = cap.resolve("1234_results.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
             Statement st = c.createStatement()) {
            // rocpd's tables carry the run's uuid: rocpd_info_agent_<uuid>, rocpd_kernel_dispatch_<uuid>...
            st.execute("CREATE TABLE rocpd_kernel_dispatch_00006409 (id INTEGER PRIMARY KEY, start INTEGER, end INTEGER)");
        }
        Cli.Result r = Cli.ingestJson(tmp.resolve("s.duckdb"), cap);
        Cli.assertExit(1, r);
        JsonNode f = JSON.readTree(r.out()).get("files").get(0);
        assertEquals("skipped", f.get("status").asText());
        assertTrue(f.get("reason").asText().startsWith("a rocpd database (rocprofv3's default output): not read;"
                + " convert it with 'rocpd convert -i 1234_results.db --output-format csv'"), f.toString());
    }
}
