package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.NsysExport;
import dev.steptrace.testsupport.NsysExport.Container;
import dev.steptrace.testsupport.StoreDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Nsight Systems 2024.6.2 SQLite export (schema 3.16.1, RTX 4060 Ti, PyTorch Llama3 with
 * NVTX push/pop ranges; compat-traces/README.md): counts checked against the file with sqlite3, and
 * the same tables re-written as a Parquet directory and an Arrow stream give the same store.
 */
class NsysRealTraceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FILE = "nsys_2024.6.2_llama3_rtx4060ti.sqlite";

    @TempDir
    Path tmp;

    private Path real;

    @BeforeEach
    void locate() {
        real = TestData.sharedOrSkip().resolve("compat-traces").resolve(FILE);
    }

    @Test
    void ingestsAndReports() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("llama3"));
        Files.copy(real, dir.resolve(FILE));
        Path db = tmp.resolve("s.duckdb");
        Path out = tmp.resolve("out");
        Cli.Result r = Cli.run("report", dir.toString(), "--db", db.toString(), "--out", out.toString(), "--quiet");
        Cli.assertExit(0, r);
        for (String f : List.of("report.json", "report.html", "report.md")) {
            assertTrue(Files.size(out.resolve(f)) > 0, f);
        }
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonSchemas.assertValid("report.schema.json", report);
        assertEquals("nsys-sqlite", report.at("/capture/format").asText());
        assertEquals("[\"NVIDIA GeForce RTX 4060 Ti\"]", report.at("/capture/devices").toString());
        // The outermost range (weight_streaming_demo) wraps the run; below it, the ranges that launch GPU
        // work are per layer (layer_N_kv_fetch, layer_N_forward for N = 0..7): layers, not steps. The NVTX
        // source is not used, and a warning says why (python sqlite3 over NVTX_EVENTS and the activity
        // tables: layer_N_forward holds 24,533,348 of the 24,718,275 ns its thread launched, 99.3%).
        JsonNode phase = report.at("/phases/unknown");
        assertEquals("gap", phase.get("step_source").asText());
        JsonNode nvtx = null;
        for (JsonNode w : report.get("warnings")) {
            nvtx = w.get("code").asText().equals("nvtx_ranges_not_steps") ? w : nvtx;
        }
        assertTrue(nvtx != null && nvtx.get("message").asText().contains("'layer_#_forward' (8 range(s), 99.3%")
                && nvtx.get("message").asText().contains("named per layer"), report.get("warnings").toString());
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            // sqlite3: SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL → 64; _RUNTIME → 1089 (237 runtime,
            // 852 driver); NVTX_EVENTS → 271, all eventType 59; _MEMCPY 16, _MEMSET 16, _SYNCHRONIZATION 40.
            assertEquals("64|1089|271|16|16|40|0", s.string("SELECT concat_ws('|', n_kernel, n_runtime, n_annotation,"
                    + " n_memcpy, n_memset, n_sync, n_dropped) FROM files"));
            assertEquals(64, s.count("SELECT count(*) FROM kernels"));
            assertEquals(1089, s.count("SELECT count(*) FROM runtime_calls"));
            assertEquals(List.of("driver|852", "runtime|237"),
                    s.strings("SELECT kind || '|' || count(*) FROM runtime_calls GROUP BY kind ORDER BY 1"));
            assertEquals(271, s.count("SELECT count(*) FROM cpu_ops WHERE kind = 'user_annotation' AND nvtx = 'push_pop'"));
            assertEquals(64, s.count("SELECT count(*) FROM runtime_calls WHERE name = 'cudaLaunchKernel'"));
            assertEquals(1, s.count("SELECT count(*) FROM runtime_calls WHERE name = 'cudaGetDeviceProperties_v2'"),
                    "only the last _vNNNN is nsys's: cudaGetDeviceProperties_v2_v12000");
            assertEquals(0, s.count("SELECT count(*) FROM runtime_calls WHERE regexp_matches(name, '_v[0-9]{4,}$')"));
            assertEquals(64, s.count("SELECT count(*) FROM kernels k JOIN runtime_calls l USING (file_id, correlation)"
                    + " WHERE l.name = 'cudaLaunchKernel'"), "every kernel has its launch");
            assertEquals(List.of("Memcpy HtoD (Pageable -> Device)", "Memset (Device)"),
                    s.strings("SELECT DISTINCT name FROM gpu_events WHERE kind IN ('memcpy', 'memset') ORDER BY 1"));
            // TARGET_INFO_SESSION_START_TIME.utcEpochNs = 1755748719424340171; the first kernel starts 1696475923 ns in.
            assertEquals(1755748719424340171L, s.count("SELECT base_time_ns FROM files"));
            assertEquals(1755748719424340171L + 1696475923L, s.count("SELECT min(ts_ns) FROM kernels"));
            assertEquals("roger-System-Product-Name", s.string("SELECT host_name FROM files"));
            assertEquals(List.of("weight_streaming_demo"), s.strings("SELECT name FROM cpu_events"
                    + " ORDER BY ts_ns, dur_ns DESC LIMIT 1"));
            assertEquals(2423137, s.count("SELECT DISTINCT pid FROM cpu_events"));
        }
    }

    /** The real file's tables re-written as Parquet files and as an Arrow stream load the same rows. */
    @Test
    void theSameTablesAsParquetAndArrowLoadTheSame() throws Exception {
        NsysExport copy = copyOf(real);
        Path cap = Files.createDirectories(tmp.resolve("cap"));
        Files.createDirectories(cap.resolve("sqlite"));
        Files.copy(real, cap.resolve("sqlite").resolve(FILE));
        copy.batchRows(50).write(Container.PARQUETDIR, cap.resolve("parquet").resolve("llama3"));
        Files.createDirectories(cap.resolve("arrow"));
        copy.write(Container.ARROW, cap.resolve("arrow").resolve("llama3.arrows"));
        Path db = tmp.resolve("s.duckdb");
        Cli.Result r = Cli.ingestJson(db, cap);
        Cli.assertExit(0, r);
        assertEquals(3, r.json().get("files").size(), r::describe);
        try (StoreDb s = StoreDb.open(db)) {
            List<String> reference = null;
            for (String format : List.of("nsys-sqlite", "nsys-parquet", "nsys-arrow")) {
                List<String> rows = s.strings("""
                        SELECT concat_ws('|', count(*), sum(hash(r))) FROM (
                          SELECT concat_ws('|', g.kind, n.name, g.ts_ns, g.dur_ns, g.correlation, g.stream, g.bytes,
                                           g.grid_x, g.block_z) AS r
                          FROM gpu_ops g JOIN files f USING (file_id) JOIN names n USING (file_id, name_id)
                          WHERE f.format = '%1$s'
                          UNION ALL
                          SELECT concat_ws('|', n.name, c.tid, c.ts_ns, c.dur_ns, c.nvtx)
                          FROM cpu_ops c JOIN files f USING (file_id) JOIN names n USING (file_id, name_id)
                          WHERE f.format = '%1$s'
                          UNION ALL
                          SELECT concat_ws('|', l.kind, n.name, l.tid, l.ts_ns, l.dur_ns, l.correlation)
                          FROM launches l JOIN files f USING (file_id) JOIN names n USING (file_id, name_id)
                          WHERE f.format = '%1$s')
                        """.formatted(format));
                if (reference == null) {
                    reference = rows;
                    assertEquals("1496", rows.get(0).split("\\|")[0], "64 + 16 + 16 + 40 + 1089 + 271 rows");
                } else {
                    assertEquals(reference, rows, format);
                }
            }
        }
    }

    /** The tables steptrace reads, with their declared SQLite types, as a test-side export. */
    static NsysExport copyOf(Path sqlite) throws Exception {
        NsysExport e = new NsysExport();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + sqlite)) {
            List<String> tables = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table'"
                         + " AND name NOT LIKE 'ENUM%' AND name NOT IN ('SAMPLING_CALLCHAINS', 'COMPOSITE_EVENTS',"
                         + " 'SCHED_EVENTS', 'DIAGNOSTIC_EVENT', 'PROFILER_OVERHEAD', 'TARGET_INFO_SYSTEM_ENV',"
                         + " 'ANALYSIS_FILE', 'ProcessStreams') ORDER BY name")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String t : tables) {
                List<String> cols = new ArrayList<>();
                try (Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT name, type FROM pragma_table_info('" + t + "')")) {
                    while (rs.next()) {
                        cols.add(rs.getString(1) + " " + rs.getString(2));
                    }
                }
                NsysExport.Table table = e.table(t, cols.toArray(new String[0]));
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + t)) {
                    int n = cols.size();
                    while (rs.next()) {
                        Object[] row = new Object[n];
                        for (int i = 0; i < n; i++) {
                            Object v = rs.getObject(i + 1);
                            row[i] = v instanceof Integer x ? Long.valueOf(x) : v;
                        }
                        table.row(row);
                    }
                }
            }
        }
        return e;
    }
}
