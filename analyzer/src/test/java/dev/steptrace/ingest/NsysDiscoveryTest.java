package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.NsysExport;
import dev.steptrace.testsupport.NsysExport.Container;
import dev.steptrace.testsupport.NsysFixtures;
import dev.steptrace.testsupport.StoreDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recognizing nsys exports by their content, and what happens to look-alikes and damaged ones. */
class NsysDiscoveryTest {
    @TempDir
    Path tmp;

    @Test
    void eachContainerIsRecognizedByItsBytesNotItsName() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("cap"));
        NsysFixtures.write(NsysFixtures.minimal(), Container.SQLITE, dir.resolve("rank0.bin"));
        NsysFixtures.write(NsysFixtures.minimal(), Container.ARROW, dir.resolve("rank1.data"));
        NsysFixtures.write(NsysFixtures.minimal(), Container.PARQUETDIR, dir.resolve("rank2"));
        TraceDiscovery.Result r = TraceDiscovery.discover(List.of(dir), java.util.Set.of());
        assertEquals(List.of("rank0.bin nsys-sqlite", "rank1.data nsys-arrow", "rank2 nsys-parquet"),
                r.traces().stream().map(f -> f.path().getFileName() + " " + f.format()).sorted().toList());
        assertEquals(List.of(), r.skipped(), "the Parquet files inside the export are not traces of their own");
        for (TraceDiscovery.Found f : r.traces()) {
            assertEquals(dir.toRealPath(), f.dir());
        }
    }

    @Test
    void lookAlikesAreSkippedWithTheReason() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("cap"));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("app.sqlite"));
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE users (id INTEGER, name TEXT)");
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("old.nvvp"));
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE StringTable (_id_ INTEGER, value TEXT)");
        }
        // An Arrow stream of some other program: no table_name in the schema metadata.
        NsysExport other = new NsysExport();
        other.table("x", "a INTEGER").row(1L);
        Path plain = tmp.resolve("plain.arrows");
        other.writeArrow(plain);
        byte[] bytes = Files.readAllBytes(plain);
        String text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).replace("table_name", "tableXname");
        Files.write(dir.resolve("other.arrows"), text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        Files.write(dir.resolve("table.arrow"), "ARROW1\0\0rest".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        Files.write(dir.resolve("stray.parquet"), "PAR1 not an export".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        Cli.Result r = Cli.ingestJson(tmp.resolve("s.duckdb"), dir);
        Cli.assertExit(1, r);
        assertTrue(r.file("app.sqlite").get("reason").asText().startsWith("no Nsight Systems tables"), r::describe);
        assertTrue(r.file("old.nvvp").get("reason").asText().contains("nvprof"), r::describe);
        assertTrue(r.file("other.arrows").get("reason").asText().contains("without 'table_name'"), r::describe);
        assertTrue(r.file("table.arrow").get("reason").asText().contains("arrowdir"), r::describe);
        assertTrue(r.file("stray.parquet").get("reason").asText().contains("outside an nsys Parquet export"), r::describe);
        for (JsonNode f : r.json().get("files")) {
            assertEquals("skipped", f.get("status").asText(), f.toString());
        }
    }

    @Test
    void damagedExportsFailCleanlyAndLeaveNothingBehind() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("cap"));
        NsysFixtures.write(NsysFixtures.tensorParallelRank(0, true), Container.SQLITE, dir.resolve("rank0.sqlite"));
        NsysFixtures.write(NsysFixtures.tensorParallelRank(1, true), Container.ARROW, dir.resolve("rank1.arrows"));
        NsysFixtures.write(NsysFixtures.minimal(), Container.SQLITE, dir.resolve("rank2.sqlite"));
        cut(dir.resolve("rank0.sqlite"), 0.6);
        cut(dir.resolve("rank1.arrows"), 0.5);
        Path db = tmp.resolve("s.duckdb");
        Cli.Result r = Cli.ingestJson(db, dir);
        Cli.assertExit(0, r);
        assertEquals("ingested", r.file("rank2.sqlite").get("status").asText());
        for (String f : List.of("rank0.sqlite", "rank1.arrows")) {
            JsonNode o = r.file(f);
            assertEquals("failed", o.get("status").asText(), r::describe);
            assertTrue(o.get("reason").asText().startsWith("cannot read: "), o.toString());
            assertTrue(!o.get("reason").asText().contains("\n"), "one line: " + o);
        }
        try (StoreDb s = StoreDb.open(db)) {
            s.assertQueryable();
            assertEquals(1, s.count("SELECT count(*) FROM files"));
            assertEquals(1, s.count("SELECT count(DISTINCT file_id) FROM gpu_ops"));
        }
    }

    @Test
    void aParquetExportIsFingerprintedWholeAndReportedFromItsOwnDirectory() throws Exception {
        Path cap = Files.createDirectories(tmp.resolve("cap"));
        Path export = cap.resolve("rank0");
        Path db = ingestedParquetExport(export);
        assertEquals("unchanged", Cli.ingestJson(db, cap).file("rank0").get("status").asText());
        // Exported again (nsys export --force-overwrite): the export is loaded again, replacing its rows.
        try (var files = Files.list(export)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        NsysFixtures.write(NsysFixtures.graphReplays(false), Container.PARQUETDIR, export);
        Cli.Result again = Cli.ingestJson(db, export);
        assertEquals("ingested", again.file("rank0").get("status").asText(), again::describe);
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(1, s.count("SELECT count(*) FROM files"));
            assertEquals(2, s.count("SELECT count(*) FROM kernels"), "the graph-mode rows replaced the node-mode ones");
        }
        // `report` given the export directory itself reports its capture (the parent directory).
        Path out = tmp.resolve("out");
        Cli.Result rep = Cli.run("report", export.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "--quiet");
        Cli.assertExit(0, rep);
        assertTrue(Files.readString(out.resolve("report.json")).contains("\"format\" : \"nsys-parquet\""));
    }

    /** A copy of a stored Parquet export made later and ingested alone is that export, not a second rank. */
    @Test
    void aCopyOfAStoredParquetExportIngestedAloneIsThatExport() throws Exception {
        Path cap = Files.createDirectories(tmp.resolve("cap"));
        Path export = cap.resolve("rank0");
        Path db = ingestedParquetExport(export);
        Path copy = Files.createDirectories(cap.resolve("rank0_copy"));
        try (var files = Files.list(export)) {
            for (Path p : files.toList()) {
                Files.copy(p, copy.resolve(p.getFileName()));
            }
        }
        Cli.Result alone = Cli.ingestJson(db, copy);
        Cli.assertExit(0, alone);
        assertEquals("same content as rank0 (a copy of the same rank?)",
                alone.file("rank0_copy").get("reason").asText(), alone::describe);
        assertEquals(export.toRealPath().toString(), alone.file("rank0_copy").get("copy_of").asText());
        try (StoreDb s = StoreDb.open(db)) {
            assertEquals(1, s.count("SELECT count(*) FROM files"));
        }
    }

    /** Writes an export of graph replays as a Parquet directory and ingests its folder; the store's path. */
    private Path ingestedParquetExport(Path export) throws Exception {
        NsysFixtures.write(NsysFixtures.graphReplays(true), Container.PARQUETDIR, export);
        Path db = tmp.resolve("s.duckdb");
        Cli.assertExit(0, Cli.ingestJson(db, export.getParent()));
        return db;
    }

    private static void cut(Path file, double keep) throws Exception {
        long size = Files.size(file);
        try (var ch = Files.newByteChannel(file, StandardOpenOption.WRITE)) {
            ch.truncate((long) (size * keep));
        }
    }
}
