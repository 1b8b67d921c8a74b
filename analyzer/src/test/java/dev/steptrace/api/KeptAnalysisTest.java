package dev.steptrace.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The analysis is kept in the store's analysis tables and every report reads it from there: a second
 * report reads the kept rows (a row planted in {@code analysis_warnings} shows up in report.json) and
 * writes the same files as the first, and a capture is analysed again only when its files, the options
 * or the steptrace build changed.
 */
class KeptAnalysisTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PLANTED = "planted_in_the_store";

    @TempDir
    Path tmp;

    @Test
    void aSecondReportReadsTheKeptAnalysisAndWritesTheSameFiles() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        report(db, capture, tmp.resolve("first"));
        assertEquals(List.of("default"), analysisKeys(db));
        report(db, capture, tmp.resolve("second"));
        assertSameFiles(tmp.resolve("first"), tmp.resolve("second"));

        plantWarning(db);
        report(db, capture, tmp.resolve("planted"), "--format", "json");
        assertTrue(warningCodes(tmp.resolve("planted")).contains(PLANTED));
    }

    @Test
    void theReportIsWhatTheTablesSay() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        report(db, capture, tmp.resolve("first"), "--format", "json");
        double before = categoryMs(tmp.resolve("first"), "attention");
        // Doubling one category's time in the kept per-step rows doubles it in the next report.
        execute(db, "UPDATE step_categories SET ns = 2 * ns, ms = 2 * ms WHERE category = 'attention'");
        report(db, capture, tmp.resolve("doubled"), "--format", "json");
        assertEquals(2 * before, categoryMs(tmp.resolve("doubled"), "attention"), 1e-9);
    }

    @Test
    void ingestKeepsTheAnalysisOfTheCapturesItChanged() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.run("ingest", capture.toString(), "--db", db.toString(), "-q"));
        assertEquals(List.of("default"), analysisKeys(db));
        plantWarning(db);
        Cli.assertExit(0, Cli.run("ingest", capture.toString(), "--db", db.toString(), "-q"));
        report(db, capture, tmp.resolve("after-ingest"), "--format", "json");
        assertTrue(warningCodes(tmp.resolve("after-ingest")).contains(PLANTED), "an unchanged ingest analyses nothing");
    }

    @Test
    void ingestWithoutAnalysisKeepsNone() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.run("ingest", capture.toString(), "--db", db.toString(), "-q", "--no-analysis"));
        assertEquals(List.of(), analysisKeys(db));
        assertEquals(0, count(db, "SELECT count(*) FROM steps"));
    }

    @Test
    void aChangedFileIsAnalysedAgain() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        report(db, capture, tmp.resolve("first"), "--format", "json");
        plantWarning(db);
        // The same events in other bytes: the file is re-ingested, so the kept analysis no longer applies.
        regzip(firstTrace(capture), Deflater.BEST_SPEED);
        report(db, capture, tmp.resolve("after"), "--format", "json");
        assertFalse(warningCodes(tmp.resolve("after")).contains(PLANTED));
        assertArrayEquals(Files.readAllBytes(tmp.resolve("first/report.json")),
                Files.readAllBytes(tmp.resolve("after/report.json")));
        assertEquals(List.of("default"), analysisKeys(db), "the analysis of the old files is replaced");
    }

    @Test
    void otherOptionsHaveTheirOwnKey() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        Path rules = tmp.resolve("rules.yaml");
        Files.writeString(rules, """
                rules:
                  - id: test.nccl_allreduce_as_other
                    match: 'ncclDevKernel_AllReduce'
                    category: comm_other
                    subcategory: test
                """);
        report(db, capture, tmp.resolve("default"), "--format", "json");
        plantWarning(db);
        report(db, capture, tmp.resolve("rules"), "--format", "json", "--taxonomy", rules.toString());
        assertFalse(warningCodes(tmp.resolve("rules")).contains(PLANTED));
        assertNotEquals(categoryMs(tmp.resolve("default"), "allreduce"), categoryMs(tmp.resolve("rules"), "allreduce"));
        List<String> keys = analysisKeys(db);
        assertEquals(2, keys.size(), keys.toString());
        assertEquals("default", keys.get(1));
        assertTrue(keys.get(0).matches("custom-[0-9a-f]{12}"), keys.toString());
        report(db, capture, tmp.resolve("default-again"), "--format", "json");
        assertTrue(warningCodes(tmp.resolve("default-again")).contains(PLANTED), "the default analysis is kept");
    }

    @Test
    void theModelFileShapesTheReportNotTheKeptAnalysis() throws Exception {
        Path capture = copyOfSampleCapture();
        String model = TestData.repoRoot().resolve("models/kimi-like-moe-slice-tp2.yaml").toString();
        // One store analyses under --model; another keeps an analysis made without it, then reports with it.
        Path fresh = tmp.resolve("fresh.duckdb");
        report(fresh, capture, tmp.resolve("fresh"), "--format", "json", "--model", model);
        Path kept = tmp.resolve("kept.duckdb");
        report(kept, capture, tmp.resolve("plain"), "--format", "json");
        List<String> made = strings(kept, "SELECT created_at::VARCHAR FROM analyses");
        report(kept, capture, tmp.resolve("kept"), "--format", "json", "--model", model);
        assertEquals(made, strings(kept, "SELECT created_at::VARCHAR FROM analyses"), "no second analysis");
        assertArrayEquals(Files.readAllBytes(tmp.resolve("fresh/report.json")),
                Files.readAllBytes(tmp.resolve("kept/report.json")));
        JsonNode decode = JSON.readTree(tmp.resolve("kept/report.json").toFile()).at("/phases/decode");
        assertTrue(decode.get("overlap").isObject() && decode.get("host_bound").isObject(), decode.toString());
        int floors = 0;
        for (JsonNode c : decode.get("categories")) {
            floors += c.get("floor_ms_per_step").isNull() ? 0 : 1;
        }
        assertTrue(floors > 0, "the model file's floors, from the analysis kept without it");
    }

    @Test
    void anotherBuildsAnalysisIsMadeAgain() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        report(db, capture, tmp.resolve("first"), "--format", "json");
        plantWarning(db);
        execute(db, "UPDATE analyses SET build = 'another-build'");
        report(db, capture, tmp.resolve("second"), "--format", "json");
        assertFalse(warningCodes(tmp.resolve("second")).contains(PLANTED));
        assertEquals(List.of(Steptrace.build()), strings(db, "SELECT build FROM analyses"));
    }

    private Path copyOfSampleCapture() throws IOException {
        Path source = TestData.sampleTraces().resolve("h200-tp2-moe-decode/graph-nccl-ll");
        Path target = tmp.resolve("cap");
        Files.createDirectories(target);
        try (Stream<Path> files = Files.list(source)) {
            for (Path f : files.toList()) {
                Files.copy(f, target.resolve(f.getFileName()));
            }
        }
        return target;
    }

    private static void report(Path db, Path capture, Path out, String... extra) {
        List<String> args = new ArrayList<>(List.of("report", capture.toString(), "--db", db.toString(),
                "--out", out.toString(), "-q"));
        args.addAll(List.of(extra));
        Cli.assertExit(0, Cli.run(args.toArray(String[]::new)));
    }

    /** A warning row the analysis never writes: seen in a report only when the report read the table. */
    private static void plantWarning(Path db) throws SQLException {
        execute(db, "INSERT INTO analysis_warnings SELECT capture_id, analysis_key, 99, '" + PLANTED
                + "', 'planted by the test' FROM analyses WHERE analysis_key = 'default'");
    }

    private static List<String> analysisKeys(Path db) throws SQLException {
        return strings(db, "SELECT analysis_key FROM analyses ORDER BY analysis_key");
    }

    private static List<String> warningCodes(Path out) throws IOException {
        List<String> codes = new ArrayList<>();
        JSON.readTree(out.resolve("report.json").toFile()).get("warnings").forEach(w -> codes.add(w.get("code").asText()));
        return codes;
    }

    private static double categoryMs(Path out, String category) throws IOException {
        for (JsonNode c : JSON.readTree(out.resolve("report.json").toFile()).at("/phases/decode/categories")) {
            if (c.get("id").asText().equals(category)) {
                return c.get("ms_per_step").asDouble();
            }
        }
        return 0;
    }

    private static void execute(Path db, String sql) throws SQLException {
        try (Connection c = DuckDb.connect(db, new Properties()); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(Path db, String sql) throws SQLException {
        try (StoreDb store = StoreDb.open(db)) {
            return store.count(sql);
        }
    }

    private static List<String> strings(Path db, String sql) throws SQLException {
        try (StoreDb store = StoreDb.open(db)) {
            return store.strings(sql);
        }
    }

    private static Path firstTrace(Path capture) throws IOException {
        try (Stream<Path> files = Files.list(capture)) {
            return files.filter(p -> p.toString().endsWith(".gz")).sorted().findFirst().orElseThrow();
        }
    }

    /** Rewrites a gzip file with another compression level: other bytes, the same content. */
    private static void regzip(Path file, int level) throws IOException {
        byte[] content;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            content = in.readAllBytes();
        }
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file)) {
            {
                def.setLevel(level);
            }
        }) {
            out.write(content);
        }
    }

    private static void assertSameFiles(Path a, Path b) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(a)) {
            files = s.map(Path::getFileName).sorted().toList();
        }
        try (Stream<Path> s = Files.list(b)) {
            assertEquals(files, s.map(Path::getFileName).sorted().toList());
        }
        for (Path f : files) {
            assertArrayEquals(Files.readAllBytes(a.resolve(f)), Files.readAllBytes(b.resolve(f)), f.toString());
        }
    }
}
