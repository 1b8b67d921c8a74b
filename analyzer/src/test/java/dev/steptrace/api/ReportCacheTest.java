package dev.steptrace.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.steptrace.report.ReportContent;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code steptrace report} keeps each capture's report content in the store and writes a second report
 * from it: byte for byte what a fresh analysis writes, and never across changed files, other options or
 * another steptrace build. Tests "the cache was read" by planting a marker in the kept content.
 */
class ReportCacheTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MARKER = "planted-in-the-cache";

    @TempDir
    Path tmp;

    @Test
    void aSecondReportIsTheKeptOneAndWritesTheSameFiles() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        report(db, capture, tmp.resolve("first"));
        assertEquals(1, keptEntries(db));
        report(db, capture, tmp.resolve("second"));
        assertEquals(1, keptEntries(db));
        assertSameFiles(tmp.resolve("first"), tmp.resolve("second"));

        plantMarker(db);
        report(db, capture, tmp.resolve("planted"), "--format", "json");
        assertEquals(MARKER, captureName(tmp.resolve("planted")));
    }

    @Test
    void ingestKeepsTheReportOfTheCapturesItChanged() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.run("ingest", capture.toString(), "--db", db.toString(), "-q"));
        assertEquals(1, keptEntries(db));
        plantMarker(db);
        Cli.assertExit(0, Cli.run("ingest", capture.toString(), "--db", db.toString(), "-q"));
        report(db, capture, tmp.resolve("after-ingest"), "--format", "json");
        assertEquals(MARKER, captureName(tmp.resolve("after-ingest")), "an unchanged ingest analyses nothing");
    }

    @Test
    void ingestWithoutAnalysisKeepsNoReport() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.run("ingest", capture.toString(), "--db", db.toString(), "-q", "--no-analysis"));
        assertEquals(0, keptEntries(db));
    }

    @Test
    void aChangedFileIsAnalysedAgain() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        report(db, capture, tmp.resolve("first"), "--format", "json");
        plantMarker(db);
        // The same events in other bytes: the file is re-ingested, so the kept report no longer applies.
        regzip(firstTrace(capture), Deflater.BEST_SPEED);
        report(db, capture, tmp.resolve("after"), "--format", "json");
        assertArrayEquals(Files.readAllBytes(tmp.resolve("first/report.json")),
                Files.readAllBytes(tmp.resolve("after/report.json")));
        assertEquals(1, keptEntries(db), "the entry for the old files is dropped");
    }

    @Test
    void otherOptionsHaveTheirOwnEntry() throws Exception {
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
        plantMarker(db);
        report(db, capture, tmp.resolve("rules"), "--format", "json", "--taxonomy", rules.toString());
        assertEquals(capture.getFileName().toString(), captureName(tmp.resolve("rules")));
        assertNotEquals(allreduceMs(tmp.resolve("default")), allreduceMs(tmp.resolve("rules")));
        assertEquals(2, keptEntries(db));
        report(db, capture, tmp.resolve("default-again"), "--format", "json");
        assertEquals(MARKER, captureName(tmp.resolve("default-again")), "the default options' entry is kept");
    }

    @Test
    void anotherBuildNeitherReadsNorKeepsThisBuildsEntries() throws Exception {
        Path capture = copyOfSampleCapture();
        Path db = tmp.resolve("st.duckdb");
        report(db, capture, tmp.resolve("first"), "--format", "json");
        try (Steptrace st = Steptrace.open(db)) {
            int id = st.captureList().get(0).id();
            AnalysisOptions options = AnalysisOptions.defaults();
            ReportCache other = ReportCache.entry(st.connection(), id, options, "another-build");
            ReportCache ours = ReportCache.entry(st.connection(), id, options, Steptrace.build());
            assertEquals(null, other.get());
            ReportContent content = ours.get();
            assertEquals(capture.getFileName().toString(), content.report().capture().name());
            other.put(content);
            assertEquals(null, ours.get());
        }
        assertEquals(1, keptEntries(db));
        report(db, capture, tmp.resolve("second"), "--format", "json");
        assertEquals(1, keptEntries(db));
        try (Steptrace st = Steptrace.open(db)) {
            int id = st.captureList().get(0).id();
            assertEquals(null, ReportCache.entry(st.connection(), id, AnalysisOptions.defaults(), "another-build").get());
        }
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
        List<String> args = new java.util.ArrayList<>(List.of("report", capture.toString(), "--db", db.toString(),
                "--out", out.toString(), "-q"));
        args.addAll(List.of(extra));
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        Cli.assertExit(0, r);
    }

    private static long keptEntries(Path db) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + db);
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM report_cache")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Renames the capture inside every kept report content. */
    private static void plantMarker(Path db) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + db);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT rowid, content FROM report_cache");
             PreparedStatement update = c.prepareStatement("UPDATE report_cache SET content = ? WHERE rowid = ?")) {
            while (rs.next()) {
                JsonNode content = JSON.readTree(rs.getString(2));
                ((ObjectNode) content.path("report").path("capture")).put("name", MARKER);
                update.setString(1, JSON.writeValueAsString(content));
                update.setLong(2, rs.getLong(1));
                update.execute();
            }
        }
    }

    private static String captureName(Path out) throws IOException {
        return JSON.readTree(out.resolve("report.json").toFile()).path("capture").path("name").asText();
    }

    private static double allreduceMs(Path out) throws IOException {
        for (JsonNode c : JSON.readTree(out.resolve("report.json").toFile()).path("phases").path("decode").path("categories")) {
            if (c.path("id").asText().equals("allreduce")) {
                return c.path("ms_per_step").asDouble();
            }
        }
        return 0;
    }

    private static Path firstTrace(Path capture) throws IOException {
        try (Stream<Path> files = Files.list(capture)) {
            return files.sorted().findFirst().orElseThrow();
        }
    }

    private static void regzip(Path file, int level) throws IOException {
        byte[] json;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            json = in.readAllBytes();
        }
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file)) {
            {
                def.setLevel(level);
            }
        }) {
            out.write(json);
        }
    }

    private static void assertSameFiles(Path a, Path b) throws IOException {
        List<Path> names;
        try (Stream<Path> files = Files.list(a)) {
            names = files.map(Path::getFileName).sorted().toList();
        }
        try (Stream<Path> files = Files.list(b)) {
            assertEquals(names, files.map(Path::getFileName).sorted().toList());
        }
        for (Path n : names) {
            assertArrayEquals(Files.readAllBytes(a.resolve(n)), Files.readAllBytes(b.resolve(n)), n.toString());
        }
    }
}
