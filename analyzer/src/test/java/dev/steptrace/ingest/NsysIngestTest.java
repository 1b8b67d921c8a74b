package dev.steptrace.ingest;

import static dev.steptrace.testsupport.NsysFixtures.ATTENTION;
import static dev.steptrace.testsupport.NsysFixtures.GEMM;
import static dev.steptrace.testsupport.NsysFixtures.NCCL;
import static dev.steptrace.testsupport.NsysFixtures.SESSION;
import static dev.steptrace.testsupport.NsysFixtures.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.RuleEvidence;
import dev.steptrace.testsupport.NsysCapture;
import dev.steptrace.testsupport.NsysExport.Container;
import dev.steptrace.testsupport.NsysFixtures;
import dev.steptrace.testsupport.StoreDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nsight Systems exports built from the documented schema ({@link NsysFixtures}), in each container
 * nsys exports to, through the real command line: what lands in the store, and the report on it.
 * Expected values are counted by hand from the fixtures (see their comments).
 */
class NsysIngestTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** Writes the two tensor-parallel ranks: rank 1 as "a", rank 0 as "b", so file order is not rank order. */
    private Path twoRanks(Container container, boolean mpi) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("tp2-" + container.type()));
        NsysFixtures.write(NsysFixtures.tensorParallelRank(1, mpi), container, dir.resolve(container.fileName("a")));
        NsysFixtures.write(NsysFixtures.tensorParallelRank(0, mpi), container, dir.resolve(container.fileName("b")));
        return dir;
    }

    private static String format(Container c) {
        return c == Container.SQLITE ? "nsys-sqlite" : c == Container.PARQUETDIR ? "nsys-parquet" : "nsys-arrow";
    }

    @ParameterizedTest
    @EnumSource(Container.class)
    void twoRankCaptureLandsInTheStore(Container container) throws Exception {
        Path dir = twoRanks(container, true);
        Path db = tmp.resolve("s.duckdb");
        Cli.Result r = Cli.ingestJson(db, dir);
        Cli.assertExit(0, r);
        JsonNode a = r.file(container.fileName("a"));
        assertEquals("ingested", a.get("status").asText(), r::describe);
        assertEquals(1, a.get("rank").asInt(), "rank from MPI_RANKS, not file order");
        assertEquals(0, r.file(container.fileName("b")).get("rank").asInt());
        assertEquals(9, a.at("/counts/kernel").asInt());
        assertEquals(2, a.at("/counts/memcpy").asInt());
        assertEquals(1, a.at("/counts/memset").asInt());
        assertEquals(15, a.at("/counts/runtime").asInt());
        assertEquals(7, a.at("/counts/annotation").asInt(), "3 steps, 3 NCCL ranges, 1 start/end range");
        assertTrue(r.json().get("warnings").isEmpty(), r::describe);
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(List.of(format(container)), s.strings("SELECT DISTINCT format FROM files"));
            assertEquals("mpi_ranks", s.string("SELECT DISTINCT rank_source FROM files"));
            assertEquals(List.of("0|" + SESSION + "|node-0|9|2|1|3|15|7|6", "1|" + (SESSION + 1234) + "|node-1|9|2|1|3|15|7|6"),
                    s.strings("SELECT concat_ws('|', rank, base_time_ns, host_name, n_kernel, n_memcpy, n_memset, n_sync,"
                            + " n_runtime, n_annotation, n_dropped) FROM files ORDER BY rank"));
            assertEquals("{\"nvtx_unterminated_ranges\":1}", s.string("SELECT anomalies FROM files WHERE rank = 0"));
            // Times: the session start is added back, so both ranks share one clock.
            assertEquals(T0 + 30_000, s.count("SELECT min(ts_ns) FROM kernels WHERE rank = 0"));
            assertEquals(T0 + 30_000, s.count("SELECT min(ts_ns) FROM kernels WHERE rank = 1"));
            assertEquals(List.of(GEMM + "|3|600000", ATTENTION + "|3|400000", NCCL + "|3|140000"),
                    s.strings("SELECT concat_ws('|', name, count(*), sum(dur_ns)) FROM kernels WHERE rank = 0"
                            + " GROUP BY name ORDER BY sum(dur_ns) DESC"));
            // Runtime names lose nsys's version suffix; eventClass 1 is the driver API.
            assertEquals(List.of("driver|cuLaunchKernel|3", "driver|cuLaunchKernelEx|3", "runtime|cudaLaunchKernel|3",
                            "runtime|cudaMemcpyAsync|2", "runtime|cudaMemsetAsync|1", "runtime|cudaStreamSynchronize|3"),
                    s.strings("SELECT concat_ws('|', kind, name, count(*)) FROM runtime_calls WHERE rank = 1"
                            + " GROUP BY kind, name ORDER BY name"));
            // One process: correlation ids as CUPTI gave them, equal on kernel and launch.
            assertEquals(9, s.count("SELECT count(*) FROM kernels k JOIN runtime_calls l USING (file_id, correlation)"
                    + " WHERE k.rank = 0"));
            assertEquals(List.of("100", "101", "102"), s.strings("SELECT correlation::VARCHAR FROM kernels WHERE rank = 0"
                    + " AND ts_ns < " + (T0 + 1_000_000) + " ORDER BY ts_ns"));
            assertEquals(List.of("memcpy|Memcpy DtoH (Device -> Pinned)|8|2", "memset|Memset (Device)|1024|1",
                            "sync|Stream Sync|3"),
                    s.strings("SELECT concat_ws('|', kind, name, bytes, count(*)) FROM gpu_events WHERE rank = 0"
                            + " AND kind <> 'kernel' GROUP BY kind, name, bytes ORDER BY kind"));
            assertEquals(List.of("0|7|132|2|1|256|1|1"), s.strings("SELECT DISTINCT concat_ws('|', device, stream,"
                    + " grid_x, grid_y, grid_z, block_x, block_y, block_z) FROM kernels WHERE rank = 0"));
            // NVTX: user annotations with their kind and domain; the NCCL domain is named on both ranks.
            assertEquals(List.of(
                            "execute_context_0(0)_generation_1(1)|push_pop||2",
                            "execute_context_1(128)_generation_0(0)|push_pop||1",
                            "load_weights|start_end||1",
                            "ncclAllReduce|push_pop|NCCL|3"),
                    s.strings("SELECT concat_ws('|', n.name, c.nvtx, coalesce(c.nvtx_domain, ''), count(*)) AS r FROM cpu_ops c"
                            + " JOIN names n USING (file_id, name_id) JOIN files f USING (file_id) WHERE f.rank = 1"
                            + " AND c.kind = 'user_annotation' GROUP BY n.name, c.nvtx, c.nvtx_domain ORDER BY r"));
            assertEquals(List.of(NsysFixtures.pid(0) + "|ncclAllReduce", (NsysFixtures.pid(0) + 1) + "|load_weights"),
                    s.strings("SELECT DISTINCT concat_ws('|', tid, name) FROM cpu_events WHERE rank = 0"
                            + " AND name IN ('load_weights', 'ncclAllReduce') ORDER BY 1"));
            assertEquals(List.of("4100||python3|CPU", "4100|4100|python3|", "4100|4101|pt_main_worker|"),
                    s.strings("SELECT concat_ws('|', pid, coalesce(tid::VARCHAR, ''), name, coalesce(labels, '')) FROM tracks t"
                            + " JOIN files f USING (file_id)"
                            + " WHERE f.rank = 0 ORDER BY tid NULLS FIRST"));
            assertEquals(List.of("0|NVIDIA H200|150754820096|9|0|132"), s.strings("SELECT concat_ws('|', device_id, name,"
                    + " total_memory, compute_major, compute_minor, num_sms) FROM devices d JOIN files f USING (file_id)"
                    + " WHERE f.rank = 0"));
            String meta = s.string("SELECT metadata FROM files WHERE rank = 0");
            assertTrue(meta.contains("\"EXPORT_PRODUCT_VERSION\":\"2024.6.2.225\""), meta);
            assertTrue(meta.contains("\"CAPTURE_EVENT_TYPE\":[\"NvtxEvents\",\"Cuda\"]"), meta);
            assertFalse(meta.contains("SECRET_TOKEN"), "environment variables stay out of the store");
        }
    }

    @ParameterizedTest
    @EnumSource(Container.class)
    void twoRankReport(Container container) throws Exception {
        Path dir = twoRanks(container, true);
        JsonNode report = report(dir);
        JsonSchemas.assertValid("report.schema.json", report);
        assertEquals(format(container), report.at("/capture/format").asText());
        assertEquals("[0,1]", report.at("/capture/ranks").toString());
        assertEquals("[\"NVIDIA H200\"]", report.at("/capture/devices").toString());
        JsonNode decode = report.at("/phases/decode");
        assertEquals("vllm_annotation", decode.get("step_source").asText());
        assertEquals(2, decode.get("steps").asDouble());
        // Decode, per step, mean over ranks: GEMM 100 µs, attention 50 µs, all-reduce (30 + 20) / 2 µs, memcpy 2 µs.
        assertEquals(Map.of("gemm", "0.1000|1", "attention", "0.0500|1", "allreduce", "0.0250|1", "memcpy", "0.0020|1"),
                categories(decode));
        assertEquals(0.177, decode.at("/kernel_ms_per_step/mean").asDouble(), 1e-9);
        JsonNode prefill = report.at("/phases/prefill");
        assertEquals(1, prefill.get("steps").asDouble());
        // Prefill: 400, 300, (80 + 90) / 2 µs, and the 1 µs memset.
        assertEquals(Map.of("gemm", "0.4000|1", "attention", "0.3000|1", "allreduce", "0.0850|1", "memcpy", "0.0010|1"),
                categories(prefill));
        for (JsonNode w : report.get("warnings")) {
            assertFalse(w.get("code").asText().equals("ops_outside_steps"), "every GPU op is in a step: " + w);
        }
    }

    /** Without MPI_RANKS the rank comes from the file name, as for Kineto traces. */
    @ParameterizedTest
    @EnumSource(Container.class)
    void rankFromTheFileNameWithoutMpiRanks(Container container) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("named"));
        NsysFixtures.write(NsysFixtures.tensorParallelRank(0, false), container, dir.resolve(container.fileName("rank0")));
        NsysFixtures.write(NsysFixtures.tensorParallelRank(1, false), container, dir.resolve(container.fileName("rank1")));
        Cli.Result r = Cli.ingestJson(tmp.resolve("s.duckdb"), dir);
        Cli.assertExit(0, r);
        assertEquals(1, r.file(container.fileName("rank1")).get("rank").asInt());
        try (StoreDb s = StoreDb.open(tmp.resolve("s.duckdb"))) {
            assertEquals("file_name", s.string("SELECT DISTINCT rank_source FROM files"));
        }
    }

    @Test
    void theThreeContainersGiveTheSameRows() throws Exception {
        Path db = tmp.resolve("s.duckdb");
        for (Container c : Container.values()) {
            Cli.assertExit(0, Cli.ingestJson(db, twoRanks(c, true)));
        }
        try (StoreDb s = StoreDb.open(db)) {
            List<String> reference = null;
            for (String format : List.of("nsys-sqlite", "nsys-parquet", "nsys-arrow")) {
                List<String> rows = s.strings("""
                        SELECT string_agg(r, chr(10) ORDER BY r) FROM (
                          SELECT concat_ws('|', f.rank, 'gpu', g.kind, n.name, g.ts_ns, g.dur_ns, g.correlation, g.device,
                                           g.stream, g.bytes, g.graph_id, g.graph_node_id, g.grid_x, g.block_x) AS r
                          FROM gpu_ops g JOIN files f USING (file_id) JOIN names n USING (file_id, name_id)
                          WHERE f.format = '%1$s'
                          UNION ALL
                          SELECT concat_ws('|', f.rank, 'cpu', c.kind, n.name, c.pid, c.tid, c.ts_ns, c.dur_ns, c.nvtx,
                                           c.nvtx_domain)
                          FROM cpu_ops c JOIN files f USING (file_id) JOIN names n USING (file_id, name_id)
                          WHERE f.format = '%1$s'
                          UNION ALL
                          SELECT concat_ws('|', f.rank, 'call', l.kind, n.name, l.pid, l.tid, l.ts_ns, l.dur_ns, l.correlation)
                          FROM launches l JOIN files f USING (file_id) JOIN names n USING (file_id, name_id)
                          WHERE f.format = '%1$s'
                          UNION ALL
                          SELECT concat_ws('|', f.rank, 'track', t.pid, t.tid, t.name) FROM tracks t JOIN files f USING (file_id)
                          WHERE f.format = '%1$s')
                        """.formatted(format));
                if (reference == null) {
                    reference = rows;
                    assertEquals(2 * (9 + 2 + 1 + 3 + 15 + 7 + 3), rows.get(0).split("\n").length);
                } else {
                    assertEquals(reference, rows, format + " differs from nsys-sqlite");
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Container.class)
    void graphNodeModeSplitsReplaysIntoKernels(Container container) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("node"));
        NsysFixtures.write(NsysFixtures.graphReplays(true), container, dir.resolve(container.fileName("rank0")));
        JsonNode report = report(dir);
        JsonNode decode = report.at("/phases/decode");
        assertEquals(2, decode.get("steps").asDouble());
        assertEquals(Map.of("gemm", "0.1000|1", "attention", "0.0500|1", "allreduce", "0.0300|1", "memcpy", "0.0020|1"),
                categories(decode));
        assertFalse(report.get("warnings").toString().contains("graph_without_kernels"), report.get("warnings").toString());
        try (StoreDb s = StoreDb.open(tmp.resolve("r.duckdb"))) {
            assertEquals(List.of("11|7|200", "12|7|200", "13|7|200", "11|7|210", "12|7|210", "13|7|210"),
                    s.strings("SELECT concat_ws('|', graph_node_id, graph_id, correlation) FROM kernels ORDER BY ts_ns"));
        }
    }

    @ParameterizedTest
    @EnumSource(Container.class)
    void graphModeKeepsEachReplayAsOneRowAndSaysCategoriesCannotBeSplit(Container container) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("graph"));
        NsysFixtures.write(NsysFixtures.graphReplays(false), container, dir.resolve(container.fileName("rank0")));
        JsonNode report = report(dir);
        JsonNode decode = report.at("/phases/decode");
        assertEquals(2, decode.get("steps").asDouble());
        // The replay's 182 µs is there, in one unclassified "kernel" per replay, beside the eager memcpy.
        assertEquals(0.184, decode.at("/kernel_ms_per_step/mean").asDouble(), 1e-9);
        assertEquals("0.1820|1", categories(decode).get("other"));
        JsonNode graphWarning = null;
        for (JsonNode w : report.get("warnings")) {
            if (w.get("code").asText().equals("graph_without_kernels")) {
                graphWarning = w;
            }
        }
        assertTrue(graphWarning != null, report.get("warnings").toString());
        assertTrue(graphWarning.get("message").asText().startsWith("2 of 2 CUDA graph launches have no kernel records"),
                graphWarning.toString());
        try (StoreDb s = StoreDb.open(tmp.resolve("r.duckdb"))) {
            assertEquals(List.of("CUDA graph 7|7||182000|200", "CUDA graph 7|7||182000|210"),
                    s.strings("SELECT concat_ws('|', name, graph_id, coalesce(graph_node_id::VARCHAR, ''), dur_ns, correlation) FROM kernels"
                            + " ORDER BY ts_ns"));
            assertEquals("{\"graph_replays_without_kernel_records\":2}", s.string("SELECT anomalies FROM files"));
        }
    }

    @ParameterizedTest
    @EnumSource(Container.class)
    void aLeanSchemaWithoutOptionalColumnsAndTables(Container container) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("lean"));
        NsysFixtures.write(NsysFixtures.minimal(), container, dir.resolve(container.fileName("worker-rank3")));
        Cli.Result r = Cli.ingestJson(tmp.resolve("s.duckdb"), dir);
        Cli.assertExit(0, r);
        JsonNode f = r.file(container.fileName("worker-rank3"));
        assertEquals(3, f.get("rank").asInt(), "from the file name");
        assertEquals(6, f.at("/counts/kernel").asInt());
        assertEquals(6, f.at("/counts/runtime").asInt());
        assertEquals(0, f.at("/counts/annotation").asInt());
        try (StoreDb s = StoreDb.open(tmp.resolve("s.duckdb"))) {
            s.assertQueryable();
            // No TARGET_INFO_CUDA_CONTEXT_INFO: correlation ids are made unique per process (pid << 32 | id).
            long pidBits = 4242L << 32;
            assertEquals(List.of(String.valueOf(pidBits | 1), String.valueOf(pidBits | 2)),
                    s.strings("SELECT correlation::VARCHAR FROM kernels ORDER BY ts_ns LIMIT 2"));
            assertEquals(6, s.count("SELECT count(*) FROM kernels k JOIN runtime_calls l USING (file_id, correlation)"));
            assertEquals(List.of(ATTENTION, GEMM), s.strings("SELECT DISTINCT name FROM kernels ORDER BY name"));
            assertEquals(0, s.count("SELECT count(*) FROM kernels WHERE graph_node_id IS NOT NULL OR graph_id IS NOT NULL"));
            assertEquals(0, s.count("SELECT count(*) FROM devices"));
            assertNull(s.strings("SELECT host_name FROM files").get(0));
            assertEquals(SESSION, s.count("SELECT base_time_ns FROM files"));
        }
        JsonNode report = report(dir);
        assertEquals("gap", report.at("/phases/unknown/step_source").asText(), "no NVTX: steps from GPU idle gaps");
        assertEquals(3, report.at("/phases/unknown/steps").asDouble());
        assertEquals(Map.of("gemm", "0.1000|1", "attention", "0.0500|1"), categories(report.at("/phases/unknown")));
    }

    /**
     * Values outside what the reader packs into one number per row (device above 65535, a stream id
     * beyond 47 bits, grid and block sizes no GPU allows, no correlation id, no demangled name) are
     * read column by column and stored exactly.
     */
    @ParameterizedTest
    @EnumSource(Container.class)
    void valuesBeyondThePackedRangesAreStoredExactly(Container container) throws Exception {
        NsysCapture c = new NsysCapture(SESSION, 77);
        c.call(T0, 1_000, 77, 5, "cudaLaunchKernel_v7000", false);
        c.kernel(T0 + 2_000, 1_000, 0, 7, 5, GEMM);
        c.kernel(T0 + 4_000, 1_000, 0, 7, 6, ATTENTION);
        Map<String, Object> k = c.lastKernel();
        k.put("deviceId", 70_000);
        k.put("streamId", 1L << 50);
        k.put("correlationId", null);
        k.put("demangledName", null);
        k.put("gridY", 70_000);
        k.put("blockZ", 600);
        Path dir = Files.createDirectories(tmp.resolve("odd"));
        NsysFixtures.write(c, container, dir.resolve(container.fileName("rank0")));
        Cli.assertExit(0, Cli.ingestJson(tmp.resolve("s.duckdb"), dir));
        try (StoreDb s = StoreDb.open(tmp.resolve("s.duckdb"))) {
            assertEquals(List.of(GEMM + "|0|7|5|132|2|1|256|1|1",
                            "_fwd_grouped_kernel_stage1|70000|" + (1L << 50) + "|-|132|70000|1|256|1|600"),
                    s.strings("SELECT concat_ws('|', name, device, stream, coalesce(correlation::VARCHAR, '-'), grid_x,"
                            + " grid_y, grid_z, block_x, block_y, block_z) FROM kernels ORDER BY ts_ns"));
        }
    }

    /**
     * Times that would not fit the store's range once the session start is added (a kernel at 2^62 ns,
     * one lasting 2^60 ns) are dropped and counted, so that no query on them can overflow; the rest loads.
     */
    @ParameterizedTest
    @EnumSource(Container.class)
    void timesOutOfRangeAreDroppedAndCounted(Container container) throws Exception {
        NsysCapture c = new NsysCapture(SESSION, 78);
        c.call(T0, 1_000, 78, 5, "cudaLaunchKernel_v7000", false);
        c.kernel(T0 + 2_000, 1_000, 0, 7, 5, GEMM);
        c.kernel((1L << 62) + 5, 1_000, 0, 7, 6, GEMM);
        c.kernel(T0 + 4_000, 1L << 60, 0, 7, 7, ATTENTION);
        Path dir = Files.createDirectories(tmp.resolve("far"));
        NsysFixtures.write(c, container, dir.resolve(container.fileName("rank0")));
        Cli.assertExit(0, Cli.ingestJson(tmp.resolve("s.duckdb"), dir));
        try (StoreDb s = StoreDb.open(tmp.resolve("s.duckdb"))) {
            assertEquals(List.of(GEMM + "|" + (T0 + 2_000) + "|1000"),
                    s.strings("SELECT concat_ws('|', name, ts_ns, dur_ns) FROM kernels"));
            assertEquals("{\"events_with_times_out_of_range_dropped\":2}", s.string("SELECT anomalies FROM files"));
            assertEquals(2, s.count("SELECT n_dropped FROM files"));
        }
    }

    /** One report around a whole server (work on two GPUs) is still one rank, and the report says so. */
    @Test
    void aFileWithTheWorkOfSeveralGpusIsReported() throws Exception {
        NsysCapture c = new NsysCapture(SESSION, 90);
        for (int k = 0; k < 2; k++) {
            long s = T0 + k * 1_000_000L;
            c.call(s, 1_000, 90, 10 + k, "cudaLaunchKernel_v7000", false);
            c.kernel(s + 2_000, 50_000, k, 7, 10 + k, GEMM);
        }
        Path dir = Files.createDirectories(tmp.resolve("server"));
        NsysFixtures.write(c, Container.SQLITE, dir.resolve("server.sqlite"));
        JsonNode report = report(dir);
        String warnings = report.get("warnings").toString();
        assertTrue(warnings.contains("\"multi_gpu_file\"") && warnings.contains("holds the GPU work of 2 GPUs"), warnings);
        try (StoreDb s = StoreDb.open(tmp.resolve("r.duckdb"))) {
            assertEquals("{\"gpu_devices\":2}", s.string("SELECT anomalies FROM files"));
            List<String> rows = RuleEvidence.rows(s.connection(), "multi_gpu_file", 1, "default");
            assertEquals(1, rows.size(), "the rule's evidence, one file: " + rows);
            assertTrue(rows.get(0).contains("|0|" + dir.resolve("server.sqlite").toAbsolutePath() + "|")
                    && rows.get(0).endsWith("|NULL|2"), "rank 0, its path, one process on 2 GPUs: " + rows);
        }
    }

    /** {@code nsys export --ts-normalize=true}: times are epoch nanoseconds already; nothing is added. */
    @Test
    void normalizedTimesAreKeptAsTheyAre() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("norm"));
        NsysCapture c = NsysFixtures.graphReplays(true);
        c.tsNormalized = true;
        NsysFixtures.write(c, Container.SQLITE, dir.resolve("rank0.sqlite"));
        Cli.assertExit(0, Cli.ingestJson(tmp.resolve("s.duckdb"), dir));
        try (StoreDb s = StoreDb.open(tmp.resolve("s.duckdb"))) {
            assertEquals(T0 + 20_000, s.count("SELECT min(ts_ns) FROM kernels"));
            assertEquals(0, s.count("SELECT base_time_ns FROM files"));
        }
    }

    @Test
    void theFirstStreamsOfAnArrowExportNeedNotBeStringIds() throws Exception {
        // NsysCapture writes StringIds last; the reader indexes the streams and reads them in its own order.
        Path dir = Files.createDirectories(tmp.resolve("arrow"));
        NsysFixtures.write(NsysFixtures.graphReplays(true), Container.ARROW, dir.resolve("rank0.arrows"));
        Cli.assertExit(0, Cli.ingestJson(tmp.resolve("s.duckdb"), dir));
        try (StoreDb s = StoreDb.open(tmp.resolve("s.duckdb"))) {
            assertEquals(List.of(GEMM), s.strings("SELECT name FROM kernels ORDER BY ts_ns LIMIT 1"));
        }
    }

    private JsonNode report(Path dir) throws Exception {
        Path out = tmp.resolve("out-" + dir.getFileName());
        Cli.Result r = Cli.run("report", dir.toString(), "--db", tmp.resolve("r.duckdb").toString(), "--out",
                out.toString(), "--format", "json", "--quiet");
        Cli.assertExit(0, r);
        return JSON.readTree(out.resolve("report.json").toFile());
    }

    /** category id → "ms_per_step|calls_per_step" (ms to 4 decimals). */
    private static Map<String, String> categories(JsonNode phase) {
        Map<String, String> m = new HashMap<>();
        for (JsonNode c : phase.get("categories")) {
            m.put(c.get("id").asText(), String.format(java.util.Locale.ROOT, "%.4f|%s",
                    c.get("ms_per_step").asDouble(), c.get("calls_per_step").asText().replaceAll("\\.0$", "")));
        }
        return m;
    }
}
