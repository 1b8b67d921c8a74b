package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.steptrace.store.Store;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every real trace of every Kineto era ingests, and what the store holds equals what a plain
 * full-tree parse of the same file says: event counts per kind, and every kernel's and runtime
 * call's nanosecond timestamp and duration, computed here with BigDecimal from the decimal text.
 */
class KinetoEraCompatibilityTest {
    private static final JsonMapper TREE = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    @TempDir
    Path tmp;

    @ParameterizedTest
    @MethodSource("dev.steptrace.testing.TestData#projectKinetoTraces")
    void projectSampleMatchesTreeParse(Path trace) throws Exception {
        checkAgainstTreeParse(trace);
    }

    @ParameterizedTest
    @MethodSource("dev.steptrace.testing.TestData#sharedKinetoTraces")
    void sharedTraceMatchesTreeParse(Path trace) throws Exception {
        checkAgainstTreeParse(trace);
    }

    private void checkAgainstTreeParse(Path trace) throws Exception {
        Expected expected = treeParse(trace);
        try (Store store = Store.open(tmp.resolve("store.duckdb"))) {
            IngestReport report = new Ingestor(store, IngestOptions.defaults()).ingest(List.of(trace));
            assertEquals(FileOutcome.Status.INGESTED, report.files().get(0).status(), report.files().toString());
            Map<String, Long> stored = new TreeMap<>();
            stored.put("kernel", count(store, "SELECT count(*) FROM gpu_ops WHERE kind = 'kernel'"));
            stored.put("memcpy", count(store, "SELECT count(*) FROM gpu_ops WHERE kind = 'memcpy'"));
            stored.put("memset", count(store, "SELECT count(*) FROM gpu_ops WHERE kind = 'memset'"));
            stored.put("runtime", count(store, "SELECT count(*) FROM launches"));
            assertEquals(expected.counts, stored, "event counts of " + trace.getFileName());
            assertEquals(expected.kernelTimes, times(store,
                    "SELECT ts_ns, dur_ns FROM gpu_ops WHERE kind = 'kernel' ORDER BY ts_ns, dur_ns"),
                    "kernel ts/dur (ns) of " + trace.getFileName());
            assertEquals(expected.runtimeTimes, times(store,
                    "SELECT ts_ns, dur_ns FROM launches ORDER BY ts_ns, dur_ns"),
                    "runtime ts/dur (ns) of " + trace.getFileName());
        }
    }

    private record Expected(Map<String, Long> counts, List<String> kernelTimes, List<String> runtimeTimes) {}

    private static Expected treeParse(Path trace) throws Exception {
        JsonNode root;
        try (InputStream raw = Files.newInputStream(trace);
             InputStream in = trace.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
            root = TREE.readTree(in);
        }
        JsonNode events = root.isArray() ? root : root.get("traceEvents");
        BigDecimal base = root.has("baseTimeNanoseconds") ? root.get("baseTimeNanoseconds").decimalValue() : BigDecimal.ZERO;
        Map<String, Long> counts = new TreeMap<>(Map.of("kernel", 0L, "memcpy", 0L, "memset", 0L, "runtime", 0L));
        List<long[]> kernels = new ArrayList<>();
        List<long[]> runtime = new ArrayList<>();
        for (JsonNode e : events) {
            if (!"X".equals(e.path("ph").asText())) {
                continue;
            }
            String kind;
            switch (e.path("cat").asText()) {
                case "kernel": case "Kernel": kind = "kernel"; break;
                case "gpu_memcpy": case "Memcpy": kind = "memcpy"; break;
                case "gpu_memset": case "Memset": kind = "memset"; break;
                case "cuda_runtime": case "cuda_driver": case "Runtime": kind = "runtime"; break;
                default: continue;
            }
            counts.merge(kind, 1L, Long::sum);
            // Kineto: absolute ns = baseTimeNanoseconds + round(ts_us * 1000).
            long ts = base.add(e.get("ts").decimalValue().movePointRight(3).setScale(0, RoundingMode.HALF_UP))
                    .longValueExact();
            long dur = e.get("dur").decimalValue().movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
            if (kind.equals("kernel")) {
                kernels.add(new long[] {ts, dur});
            } else if (kind.equals("runtime")) {
                runtime.add(new long[] {ts, dur});
            }
        }
        return new Expected(counts, sorted(kernels), sorted(runtime));
    }

    private static List<String> sorted(List<long[]> times) {
        times.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        return times.stream().map(t -> t[0] + "+" + t[1]).toList();
    }

    private static long count(Store store, String sql) throws Exception {
        try (PreparedStatement ps = store.connection().prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<String> times(Store store, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = store.connection().prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getLong(1) + "+" + rs.getLong(2));
            }
        }
        return out;
    }
}
