package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.Gzip;
import dev.steptrace.testsupport.ProfilerStepOracle;
import dev.steptrace.testsupport.StoreDb;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Captures as the traces say, through the command line: a folder holding two runs' rank files side by side
 * and an unrelated trace is three captures and three reports (never one report mixing runs), one file of
 * a two-rank capture reports one rank, files that could belong to more than one run are reported apart
 * with one line saying so, ranks from file order are per capture, and links are what users mean by
 * them: a folder of links to the ranks' files is their capture, a link to a run's folder is that folder.
 */
class CaptureAssignmentTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DECODE = TestData.sampleTraces().resolve("h200-tp2-moe-decode");
    private static final Set<String> GPU_EVENTS = Set.of("kernel", "gpu_memcpy", "gpu_memset");

    @TempDir
    Path tmp;

    @Test
    void twoRunsSideBySideAndAnUnrelatedTraceAreThreeCapturesAndThreeReports() throws Exception {
        Path mixed = Files.createDirectories(tmp.resolve("mixed"));
        Map<String, String> runOf = new HashMap<>();
        for (String run : List.of("graph-nccl-ll", "graph-nccl-simple")) {
            for (Path f : list(DECODE.resolve(run))) {
                Files.copy(f, mixed.resolve(f.getFileName()));
                runOf.put(f.getFileName().toString(), run);
            }
        }
        Path alexnet = TestData.smallTraces().resolve("hta_alexnet_cuda_sync.json.gz");
        Files.copy(alexnet, mixed.resolve(alexnet.getFileName()));
        runOf.put(alexnet.getFileName().toString(), "alexnet");
        Path db = tmp.resolve("st.duckdb");

        // ingest --json says which capture each file went to: the files of one run share one, each run its own.
        Cli.Result ingest = Cli.run("ingest", mixed.toString(), "--db", db.toString(), "--json", "--no-analysis");
        Cli.assertExit(0, ingest);
        Map<String, Set<String>> filesOfCapture = new HashMap<>();
        for (JsonNode f : ingest.json().get("files")) {
            String file = Path.of(f.get("path").asText()).getFileName().toString();
            filesOfCapture.computeIfAbsent(f.get("capture").asText(), k -> new HashSet<>()).add(runOf.get(file));
        }
        assertEquals(3, filesOfCapture.size(), filesOfCapture.toString());
        filesOfCapture.values().forEach(runs -> assertEquals(1, runs.size(), "a capture mixes runs: " + filesOfCapture));
        assertEquals(List.of(), strings(ingest.json().get("warnings")));
        // Named after the directory, with the start of each run, or the file of a one-file capture.
        assertTrue(filesOfCapture.containsKey("mixed-hta_alexnet_cuda_sync"), filesOfCapture.toString());
        for (String name : filesOfCapture.keySet()) {
            assertTrue(name.matches("mixed-(\\d{8}-\\d{6}|hta_alexnet_cuda_sync)"), name);
        }

        Path out = tmp.resolve("out");
        Cli.assertExit(0, Cli.run("report", mixed.toString(), "--db", db.toString(), "--out", out.toString(), "-q"));
        JsonNode index = JSON.readTree(out.resolve("index.json").toFile());
        JsonSchemas.assertValid("index.schema.json", index);
        assertEquals(3, index.get("captures").size());
        assertTrue(Files.size(out.resolve("index.html")) > 0);
        assertTrue(Files.readString(out.resolve("index.md")).contains("(mixed-hta_alexnet_cuda_sync/report.html)"));
        for (JsonNode entry : index.get("captures")) {
            JsonNode report = JSON.readTree(out.resolve(entry.get("name").asText()).resolve("report.json").toFile());
            assertTrue(Files.isRegularFile(out.resolve(entry.get("report").asText())), entry.toString());
            assertEquals(1, report.at("/capture/devices").size(), "one GPU model: " + report.at("/capture"));
            String run = filesOfCapture.get(entry.get("name").asText()).iterator().next();
            if (run.equals("alexnet")) {
                assertEquals(1, report.at("/capture/files").asInt());
                assertEquals("NVIDIA A100-PG509-200", report.at("/capture/devices/0").asText());
                continue;
            }
            assertEquals(2, report.at("/capture/files").asInt());
            assertEquals(List.of("0", "1"), strings(report.at("/capture/ranks")));
            // The run's own numbers: kernel time per decode step from a tree parse of its two rank files.
            assertEquals(meanOverRanks(list(DECODE.resolve(run))), report.at("/phases/decode/kernel_ms_per_step/mean").asDouble(),
                    1e-6, run);
            assertEquals(entry.at("/phases/decode/kernel_ms_per_step").asDouble(),
                    report.at("/phases/decode/kernel_ms_per_step/mean").asDouble(), 0, "the index row is the report's");
        }
    }

    @Test
    void oneFileOfATwoRankCaptureReportsThatRankAlone() throws Exception {
        Path capture = Files.createDirectories(tmp.resolve("ll"));
        for (Path f : list(DECODE.resolve("graph-nccl-ll"))) {
            Files.copy(f, capture.resolve(f.getFileName()));
        }
        Path rank1 = list(capture).get(1);
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.run("report", capture.toString(), "--db", db.toString(), "--out",
                tmp.resolve("both").toString(), "--format", "json", "-q"));
        Cli.assertExit(0, Cli.run("report", rank1.toString(), "--db", db.toString(), "--out",
                tmp.resolve("one").toString(), "--format", "json", "-q"));
        JsonNode one = JSON.readTree(tmp.resolve("one/report.json").toFile());
        assertEquals(1, one.at("/capture/files").asInt());
        assertEquals(List.of("1"), strings(one.at("/capture/ranks")));
        assertEquals(1, one.get("ranks").size());
        assertEquals(meanOverRanks(List.of(rank1)), one.at("/phases/decode/kernel_ms_per_step/mean").asDouble(), 1e-6);
        // The two-rank capture is still whole.
        Cli.assertExit(0, Cli.run("report", capture.toString(), "--db", db.toString(), "--out",
                tmp.resolve("again").toString(), "--format", "json", "-q"));
        assertEquals(List.of("0", "1"),
                strings(JSON.readTree(tmp.resolve("again/report.json").toFile()).at("/capture/ranks")));
        assertEquals(Files.readString(tmp.resolve("both/report.json")), Files.readString(tmp.resolve("again/report.json")));
    }

    @Test
    void filesThatCouldBelongToTwoRunsAreReportedApartWithOneLine() throws Exception {
        // graph-nccl-ll's two ranks, and a slice of its rank 0: which rank 0 goes with rank 1?
        Path dir = Files.createDirectories(tmp.resolve("ambiguous"));
        for (Path f : list(DECODE.resolve("graph-nccl-ll"))) {
            Files.copy(f, dir.resolve(f.getFileName()));
        }
        Files.copy(TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz"),
                dir.resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz"));
        Path db = tmp.resolve("st.duckdb");
        Cli.Result r = Cli.run("report", dir.toString(), "--db", db.toString(), "--out", tmp.resolve("out").toString(),
                "--format", "json");
        Cli.assertExit(0, r);
        List<String> lines = r.err().lines().filter(l -> l.contains("could be ranks of more than one run")).toList();
        assertEquals(1, lines.size(), r.err());
        JsonNode index = JSON.readTree(tmp.resolve("out/index.json").toFile());
        assertEquals(3, index.get("captures").size());
        for (JsonNode entry : index.get("captures")) {
            assertEquals(1, entry.get("files").asInt(), "reported apart: " + entry);
        }
    }

    @Test
    void ranksFromFileOrderArePerCaptureAndACaptureKeepsItsAnalysisWhenAnUnrelatedFileArrives() throws Exception {
        String base = Files.readString(TestData.baseTrace());
        String noRank = base.replaceFirst("\"distributedInfo\": \\{[^}]*\\},", "");
        assertNotEquals(base, noRank);
        Path dir = Files.createDirectories(tmp.resolve("workers"));
        // Two processes of one run that state no rank, the second with another op name (other bytes).
        Files.writeString(dir.resolve("worker-a.json"), noRank);
        Files.writeString(dir.resolve("worker-b.json"), noRank.replace("aten::mm", "aten::addmm"));
        Path db = tmp.resolve("st.duckdb");
        Cli.Result first = Cli.run("ingest", dir.toString(), "--db", db.toString(), "--json");
        Cli.assertExit(0, first);
        Map<String, JsonNode> files = byFile(first.json());
        assertEquals("workers", files.get("worker-a.json").get("capture").asText());
        assertEquals(0, files.get("worker-a.json").get("rank").asInt());
        assertEquals(1, files.get("worker-b.json").get("rank").asInt());
        assertEquals(2, strings(first.json().get("warnings")).stream().filter(w -> w.contains("from file order")).count());
        String analysed = strings(db, "SELECT capture_id || ' ' || created_at FROM analyses").get(0);

        // An unrelated trace arrives beside them: a capture of its own; theirs keeps its id and its analysis.
        Files.copy(TestData.smallTraces().resolve("hta_alexnet_cuda_sync.json.gz"), dir.resolve("alexnet.json.gz"));
        Cli.Result second = Cli.run("ingest", dir.toString(), "--db", db.toString(), "--json");
        Cli.assertExit(0, second);
        files = byFile(second.json());
        assertEquals(files.get("worker-a.json").get("capture").asText(), files.get("worker-b.json").get("capture").asText());
        assertEquals("workers-alexnet", files.get("alexnet.json.gz").get("capture").asText());
        assertEquals(0, files.get("alexnet.json.gz").get("rank").asInt());
        assertEquals(1, files.get("worker-b.json").get("rank").asInt());
        assertEquals(List.of(), strings(second.json().get("warnings")), "ranks already assumed are not assumed again");
        List<String> analyses = strings(db, "SELECT capture_id || ' ' || created_at FROM analyses ORDER BY capture_id");
        assertEquals(2, analyses.size());
        assertEquals(analysed, analyses.get(0), "the workers' capture kept its id and analysis");
    }

    @Test
    void aFolderOfLinksToTheRanksFilesIsOneCapture() throws Exception {
        // Each rank's file where its node wrote it, and a folder of links that gathers the run.
        List<Path> ranks = list(DECODE.resolve("graph-nccl-ll"));
        Path run = Files.createDirectories(tmp.resolve("run"));
        for (int r = 0; r < ranks.size(); r++) {
            Path node = Files.createDirectories(tmp.resolve("scratch/node" + r));
            Path file = Files.copy(ranks.get(r), node.resolve(ranks.get(r).getFileName()));
            Files.createSymbolicLink(run.resolve("rank" + r + ".pt.trace.json.gz"), file);
        }
        Path db = tmp.resolve("st.duckdb");
        Cli.Result ingest = Cli.ingestJson(db, run);
        Cli.assertExit(0, ingest);
        assertEquals(2, ingest.json().get("files").size(), ingest.describe());
        for (JsonNode f : ingest.json().get("files")) {
            assertEquals("run", f.get("capture").asText(), f.toString());
            assertEquals(run.toRealPath(), Path.of(f.get("path").asText()).getParent(), f.toString());
        }

        assertReportsTheRun(run, db, ranks);

        // One link alone is that rank alone.
        Cli.assertExit(0, Cli.run("report", run.resolve("rank1.pt.trace.json.gz").toString(), "--db", db.toString(),
                "--out", tmp.resolve("one").toString(), "--format", "json", "-q"));
        assertEquals(List.of("1"), strings(JSON.readTree(tmp.resolve("one/report.json").toFile()).at("/capture/ranks")));
    }

    @Test
    void aLinkToARunsFolderIsThatFolderAndLinksToFoldersInsideAreNotFollowed() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("runs/run-42"));
        for (Path f : list(DECODE.resolve("graph-nccl-ll"))) {
            Files.copy(f, run.resolve(f.getFileName()));
        }
        Path latest = Files.createSymbolicLink(tmp.resolve("latest"), run);
        Path db = tmp.resolve("st.duckdb");
        Path out = tmp.resolve("out");
        Cli.assertExit(0, Cli.run("report", latest.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "-q"));
        assertEquals(List.of("0", "1"),
                strings(JSON.readTree(out.resolve("report.json").toFile()).at("/capture/ranks")));
        // The files are the run folder's: named by their own path, they are already in the store.
        Cli.Result again = Cli.ingestJson(db, run);
        Cli.assertExit(0, again);
        for (JsonNode f : again.json().get("files")) {
            assertEquals("unchanged", f.get("status").asText(), f.toString());
            assertEquals(run.toRealPath(), Path.of(f.get("path").asText()).getParent(), f.toString());
        }

        // Met inside a folder, a link to a folder may lead back up: it is reported, not walked.
        Path top = Files.createDirectories(tmp.resolve("top"));
        Files.createSymbolicLink(top.resolve("loop"), tmp);
        Cli.Result inside = Cli.run("ingest", top.toString(), "--db", db.toString());
        assertEquals(1, inside.exit(), inside::describe);
        assertTrue(inside.err().contains("loop: a link to a directory: not followed"), inside.describe());
    }

    @Test
    void aGunzippedCopyBesideItsGzipFileIsThatRankNotASecondRun() throws Exception {
        List<Path> ranks = list(DECODE.resolve("graph-nccl-ll"));
        Path run = copied(ranks);
        // Rank 0 gunzipped beside its .gz, as a user does to read it.
        String gz = ranks.get(0).getFileName().toString();
        String plain = gz.substring(0, gz.length() - ".gz".length());
        try (InputStream in = new GZIPInputStream(Files.newInputStream(ranks.get(0)))) {
            Files.copy(in, run.resolve(plain));
        }
        Path db = tmp.resolve("st.duckdb");
        Cli.Result ingest = Cli.ingestJson(db, run);
        Cli.assertExit(0, ingest);
        Map<String, JsonNode> files = byFile(ingest.json());
        // The plain file comes first in path order and keeps the rank; the .gz is its copy.
        assertEquals("skipped", files.get(gz).get("status").asText(), files.get(gz).toString());
        assertEquals("same content as " + plain + " once decompressed (a copy of the same rank?)",
                files.get(gz).get("reason").asText());
        String rank1 = ranks.get(1).getFileName().toString();
        assertEquals(files.get(plain).get("capture").asText(), files.get(rank1).get("capture").asText());
        assertEquals(List.of(), strings(ingest.json().get("warnings")));
        assertReportsTheRun(run, db, ranks);

        // As long as the .gz's content but one letter of a name different: not a copy, so two rank 0s, in
        // two captures (the one the .gz joins keeps rank 1).
        byte[] bytes = Files.readAllBytes(run.resolve(plain));
        int name = new String(bytes, StandardCharsets.ISO_8859_1).indexOf("\"name\": \"") + "\"name\": \"".length();
        bytes[name] = (byte) (bytes[name] == 'X' ? 'Y' : 'X');
        Files.write(run.resolve(plain), bytes);
        Cli.Result changed = Cli.ingestJson(db, run);
        Cli.assertExit(0, changed);
        files = byFile(changed.json());
        assertEquals("ingested", files.get(gz).get("status").asText(), files.get(gz).toString());
        assertEquals("ingested", files.get(plain).get("status").asText(), files.get(plain).toString());
        assertEquals(files.get(rank1).get("capture").asText(), files.get(gz).get("capture").asText());
        assertNotEquals(files.get(gz).get("capture").asText(), files.get(plain).get("capture").asText());
    }

    /**
     * Copies made after a run was ingested, each ingested alone: a byte copy of rank 0 and rank 1 gunzipped
     * beside its .gz are those ranks, not new ones (as when the folder is ingested whole).
     */
    @Test
    void aCopyIngestedAloneAfterItsRunIsThatRank() throws Exception {
        List<Path> ranks = list(DECODE.resolve("graph-nccl-ll"));
        Path run = copied(ranks);
        Path db = ingested(run);

        String gz0 = ranks.get(0).getFileName().toString();
        Path copy = Files.copy(ranks.get(0), run.resolve("copy_of_" + gz0));
        Cli.Result byBytes = Cli.ingestJson(db, copy);
        Cli.assertExit(0, byBytes);
        assertEquals("skipped", byFile(byBytes.json()).get(copy.getFileName().toString()).get("status").asText(),
                byBytes::describe);
        JsonNode skipped = byFile(byBytes.json()).get(copy.getFileName().toString());
        assertEquals("same content as " + gz0 + " (a copy of the same rank?)", skipped.get("reason").asText());
        // It is that rank of that run, and a report of the copy is one of the file it copies.
        assertEquals(0, skipped.get("rank").asInt(), skipped.toString());
        assertEquals(run.getFileName().toString(), skipped.get("capture").asText(), skipped.toString());
        Path out = tmp.resolve("out-copy");
        Cli.assertExit(0, Cli.run("report", copy.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "-q"));
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertEquals(List.of("0"), strings(report.at("/capture/ranks")));
        assertEquals(meanOverRanks(List.of(ranks.get(0))),
                report.at("/phases/decode/kernel_ms_per_step/mean").asDouble(), 1e-6);

        String gz1 = ranks.get(1).getFileName().toString();
        Path plain1 = run.resolve(gz1.substring(0, gz1.length() - ".gz".length()));
        try (InputStream in = new GZIPInputStream(Files.newInputStream(ranks.get(1)))) {
            Files.copy(in, plain1);
        }
        Cli.Result gunzipped = Cli.ingestJson(db, plain1);
        Cli.assertExit(0, gunzipped);
        assertEquals("same content as " + gz1 + " once decompressed (a copy of the same rank?)",
                byFile(gunzipped.json()).get(plain1.getFileName().toString()).get("reason").asText(),
                gunzipped::describe);

        assertEquals(List.of(gz0, gz1), strings(db, "SELECT parse_filename(path) FROM files ORDER BY path"));
        assertReportsTheRun(run, db, ranks);
    }

    /**
     * A rank's file renamed after its run was ingested, and ingested alone under its new name: its old rows
     * leave the store, so the run holds the rank once (a directory ingested whole does this for a file gone
     * from it; a file ingested alone knows the file it was by its bytes).
     */
    @Test
    void aFileRenamedAndIngestedAloneReplacesItsOldRows() throws Exception {
        List<Path> ranks = list(DECODE.resolve("graph-nccl-ll"));
        Path run = copied(ranks);
        Path db = ingested(run);
        String gz0 = ranks.get(0).getFileName().toString();
        Path renamed = Files.move(run.resolve(gz0), run.resolve("r0.json.gz"));

        Cli.Result alone = Cli.ingestJson(db, renamed);
        Cli.assertExit(0, alone);
        Map<String, JsonNode> files = byFile(alone.json());
        assertEquals("ingested", files.get("r0.json.gz").get("status").asText(), alone::describe);
        assertEquals("no longer on disk (renamed r0.json.gz?); its rows from an earlier ingest were removed from"
                + " the store", files.get(gz0).get("reason").asText());
        assertEquals(List.of("r0.json.gz", ranks.get(1).getFileName().toString()),
                strings(db, "SELECT parse_filename(path) FROM files ORDER BY path"));
        assertReportsTheRun(run, db, ranks);

        // Renamed again, onto rank 1's file (rank 1 is gone, as a user overwriting it would leave it): the path
        // holds rank 0 now, and the rows of r0.json.gz go.
        String gz1 = ranks.get(1).getFileName().toString();
        Files.move(renamed, run.resolve(gz1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Cli.Result onto = Cli.ingestJson(db, run.resolve(gz1));
        Cli.assertExit(0, onto);
        assertEquals("no longer on disk (renamed " + gz1 + "?); its rows from an earlier ingest were removed from"
                + " the store", byFile(onto.json()).get("r0.json.gz").get("reason").asText(), onto::describe);
        assertEquals(List.of(gz1 + " 0"), strings(db, "SELECT parse_filename(path) || ' ' || rank FROM files"));
    }

    /**
     * A run ingested as plain files, then one of them gzipped in place and ingested alone: the gone plain file's
     * rows leave the store, so the run holds that rank once (a directory ingested whole removes a file gone from
     * it anyway). A gzip file damaged inside, under a trailer that still names the gone file's content, loads
     * fewer events: the gone file's rows stay, also when it is ingested again unchanged.
     */
    @Test
    void aFileGzippedInPlaceAndIngestedAloneReplacesItsOldRows() throws Exception {
        List<Path> ranks = list(DECODE.resolve("graph-nccl-ll"));
        Path run = Files.createDirectories(tmp.resolve("run"));
        List<Path> plain = gunzipped(ranks, run, 1.0);
        Path db = ingested(run);
        String plain1 = plain.get(1).getFileName().toString();
        Path gz1 = run.resolve(plain1 + ".gz");

        // gzip, as a user runs it: the content compressed into NAME.gz, NAME removed. A byte of the compressed
        // data changed (the trailer still naming the original content) makes the load stop at the damage.
        byte[] compressed = Gzip.of(Files.readAllBytes(plain.get(1)));
        Files.delete(plain.get(1));
        byte[] damaged = compressed.clone();
        damaged[damaged.length / 2] ^= 0x55;
        Files.write(gz1, damaged);
        String kept = "no longer on disk (gzipped into " + gz1.getFileName() + "?, whose events are not the same: its"
                + " rows stay in use)";
        for (String status : List.of("partial", "unchanged")) {
            Cli.Result partial = Cli.ingestJson(db, gz1);
            Cli.assertExit(0, partial);
            assertEquals(status, byFile(partial.json()).get(gz1.getFileName().toString()).get("status").asText(),
                    partial::describe);
            assertEquals(kept, byFile(partial.json()).get(plain1).get("reason").asText(), partial::describe);
            assertEquals(List.of(plain.get(0).getFileName().toString(), plain1, gz1.getFileName().toString()),
                    strings(db, "SELECT parse_filename(path) FROM files ORDER BY path"));
        }

        Files.write(gz1, compressed);
        assertGzippedInPlace(db, gz1, plain1, "ingested", plain.get(0).getFileName().toString());
        assertReportsTheRun(run, db, ranks);
    }

    /** A plain trace cut short, ingested, then gzipped in place: the gzip file loads as short, and replaces it. */
    @Test
    void aTraceCutShortThenGzippedInPlaceReplacesItsOldRows() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        List<Path> plain = gunzipped(list(DECODE.resolve("graph-nccl-ll")), run, 0.6);
        Path db = ingested(run);
        String plain1 = plain.get(1).getFileName().toString();
        assertEquals(List.of("ingested", "partial"),
                strings(db, "SELECT status FROM files ORDER BY path"));
        Path gz1 = Files.write(run.resolve(plain1 + ".gz"), Gzip.of(Files.readAllBytes(plain.get(1))));
        Files.delete(plain.get(1));

        assertGzippedInPlace(db, gz1, plain1, "partial", plain.get(0).getFileName().toString());
    }

    /**
     * Ingests {@code gz} alone: it loads as {@code status} and is taken for {@code gone} gzipped in place, whose rows
     * leave the store, which then holds {@code other}'s and its own.
     */
    private static void assertGzippedInPlace(Path db, Path gz, String gone, String status, String other) throws Exception {
        Cli.Result alone = Cli.ingestJson(db, gz);
        Cli.assertExit(0, alone);
        assertEquals(status, byFile(alone.json()).get(gz.getFileName().toString()).get("status").asText(), alone::describe);
        assertEquals("no longer on disk (gzipped into " + gz.getFileName() + "?); its rows from an earlier ingest"
                + " were removed from the store", byFile(alone.json()).get(gone).get("reason").asText(), alone::describe);
        assertEquals(List.of(other, gz.getFileName().toString()),
                strings(db, "SELECT parse_filename(path) FROM files ORDER BY path"));
    }

    /** Each gzip file of {@code ranks} decompressed into {@code dir}, the last one cut to {@code share} of its bytes. */
    private static List<Path> gunzipped(List<Path> ranks, Path dir, double share) throws Exception {
        List<Path> plain = new ArrayList<>();
        for (Path gz : ranks) {
            String name = gz.getFileName().toString();
            byte[] content;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
                content = in.readAllBytes();
            }
            if (plain.size() == ranks.size() - 1) {
                content = Arrays.copyOf(content, (int) (content.length * share));
            }
            plain.add(Files.write(dir.resolve(name.substring(0, name.length() - ".gz".length())), content));
        }
        return plain;
    }

    /**
     * A store that already holds a rank twice (two files of one directory with the same bytes, as steptrace left
     * a copy ingested alone before copies were told across ingests): ingesting the directory reports each file
     * once, keeps the first in path order and removes the other's rows.
     */
    @Test
    void aRankStoredTwiceIsStoredOnceAfterTheNextIngest() throws Exception {
        List<Path> ranks = list(DECODE.resolve("graph-nccl-ll"));
        Path run = copied(ranks);
        Path db = ingested(run);
        // The same bytes loaded from another directory, then moved beside rank 0: file and row.
        Path elsewhere = Files.copy(ranks.get(0), Files.createDirectories(tmp.resolve("other")).resolve("z-copy.json.gz"));
        Cli.assertExit(0, Cli.ingestJson(db, elsewhere));
        String stored = elsewhere.toRealPath().toString();
        Path copy = Files.move(elsewhere, run.resolve("z-copy.json.gz"));
        try (Connection c = DuckDb.connect(db, new Properties());
             PreparedStatement ps = c.prepareStatement("UPDATE files SET path = ?, capture_id = NULL WHERE path = ?")) {
            ps.setString(1, copy.toRealPath().toString());
            ps.setString(2, stored);
            assertEquals(1, ps.executeUpdate());
        }

        Cli.Result again = Cli.ingestJson(db, run);
        Cli.assertExit(0, again);
        List<String> reported = new ArrayList<>();
        again.json().get("files").forEach(f -> reported.add(Path.of(f.get("path").asText()).getFileName().toString()));
        String gz0 = ranks.get(0).getFileName().toString();
        String gz1 = ranks.get(1).getFileName().toString();
        assertEquals(List.of(gz0, gz1, "z-copy.json.gz"), reported, again::describe);
        assertEquals("same content as " + gz0 + " (a copy of the same rank?); its rows from an earlier ingest were"
                + " removed from the store", byFile(again.json()).get("z-copy.json.gz").get("reason").asText());
        assertEquals(List.of(gz0, gz1), strings(db, "SELECT parse_filename(path) FROM files ORDER BY path"));
        assertReportsTheRun(run, db, ranks);
    }

    /**
     * A stored .gz rewritten in place with other content of the very same size, and that content gunzipped
     * beside it: the plain file is no copy of the stored rows (they hold the old content), so it loads.
     */
    @Test
    void aStoredGzipFileChangedInPlaceIsNoOriginal() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path gz = Files.copy(TestData.smallTraces().resolve("hta_alexnet_cuda_sync.json.gz"), run.resolve("rank0.json.gz"));
        Path db = ingested(run);
        long storedKernels;
        try (StoreDb s = StoreDb.open(db)) {
            storedKernels = s.count("SELECT n_kernel FROM files");
        }

        byte[] other = Files.readAllBytes(TestData.baseTrace());
        Files.write(gz, gzipPaddedTo(other, Files.size(gz)));
        Path plain = Files.write(run.resolve("rank0.json"), other);
        Cli.Result alone = Cli.ingestJson(db, plain);
        Cli.assertExit(0, alone);
        assertEquals("ingested", byFile(alone.json()).get("rank0.json").get("status").asText(), alone::describe);
        try (StoreDb s = StoreDb.open(db)) {
            // base.json has two kernel events (a GEMM and an all-reduce); the alexnet trace 79.
            assertEquals(2, s.count("SELECT n_kernel FROM files WHERE path LIKE '%rank0.json'"));
            assertEquals(79, storedKernels);
        }
    }

    /**
     * Three files of the same content that is no trace: the first is found to be none, and its copies are no
     * copies of anything in the store (nor read again: they are the same bytes).
     */
    @Test
    void aCopyWhoseOriginalDidNotLoadIsNotTakenForStored() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        for (String name : List.of("a.json", "b.json", "c.json")) {
            Files.writeString(run.resolve(name), "{\"traceEvents\": {\"a\": 1}}");
        }
        Cli.Result ingest = Cli.ingestJson(tmp.resolve("st.duckdb"), run);
        Cli.assertExit(1, ingest);
        Map<String, JsonNode> files = byFile(ingest.json());
        assertEquals("\"traceEvents\" is an object, not a list", files.get("a.json").get("reason").asText(),
                ingest::describe);
        for (String copy : List.of("b.json", "c.json")) {
            assertEquals("same content as a.json (a copy of the same rank?), which is no trace",
                    files.get(copy).get("reason").asText(), ingest::describe);
            assertTrue(files.get(copy).get("copy_of").isNull(), ingest::describe);
        }
        assertTrue(ingest.err().contains("no usable trace"), ingest::describe);
    }

    /** A gzip file of {@code content}, its header's name field padding it to {@code size} bytes. */
    private static byte[] gzipPaddedTo(byte[] content, long size) throws Exception {
        byte[] plain = Gzip.of(content);
        int name = (int) (size - plain.length - 1);
        assertTrue(name > 0, "the content compresses to fewer bytes than the size");
        byte[] padded = new byte[(int) size];
        System.arraycopy(plain, 0, padded, 0, 10);
        padded[3] |= 0x08;
        Arrays.fill(padded, 10, 10 + name, (byte) 'n');
        System.arraycopy(plain, 10, padded, 11 + name, plain.length - 10);
        return padded;
    }

    /**
     * Two ranks' gzip files, each with the same 4 KiB of zeros after its end (as a crash leaves them): their
     * trailers then read the same, but a damaged file is no copy (docs/schema.md), so both ranks load.
     */
    @Test
    void damagedGzipFilesWithTheSameTailAreNotCopies() throws Exception {
        List<Path> ranks = list(DECODE.resolve("graph-nccl-ll"));
        Path run = Files.createDirectories(tmp.resolve("run"));
        for (Path f : ranks) {
            byte[] bytes = Files.readAllBytes(f);
            Files.write(run.resolve(f.getFileName()), Arrays.copyOf(bytes, bytes.length + 4096));
        }
        Path db = tmp.resolve("st.duckdb");
        Cli.Result ingest = Cli.ingestJson(db, run);
        Map<String, JsonNode> files = byFile(ingest.json());
        assertEquals(2, files.size(), ingest::describe);
        for (JsonNode f : files.values()) {
            assertNotEquals("skipped", f.get("status").asText(), f.toString());
        }
        assertEquals(List.of("0", "1"), strings(db, "SELECT DISTINCT rank::VARCHAR FROM files ORDER BY 1"));
    }

    /**
     * A run's folder ingested as plain JSON, then one rank compressed in place (its .json gone, its .json.gz
     * new), then the other rank deleted: the rows of a file no longer on disk leave the store, with a line,
     * so the capture holds each rank once and then only the one left; unless nothing is left to find.
     */
    @Test
    void filesGoneFromARunsFolderLeaveItsCapture() throws Exception {
        List<Path> ranks = list(DECODE.resolve("graph-nccl-ll"));
        Path run = Files.createDirectories(tmp.resolve("run"));
        List<String> plain = new ArrayList<>();
        for (Path f : ranks) {
            String gz = f.getFileName().toString();
            plain.add(gz.substring(0, gz.length() - ".gz".length()));
            try (InputStream in = new GZIPInputStream(Files.newInputStream(f))) {
                Files.copy(in, run.resolve(plain.get(plain.size() - 1)));
            }
        }
        Path db = ingested(run);

        Files.delete(run.resolve(plain.get(0)));
        Files.copy(ranks.get(0), run.resolve(ranks.get(0).getFileName()));
        Cli.Result compressed = Cli.ingestJson(db, run);
        Cli.assertExit(0, compressed);
        Map<String, JsonNode> files = byFile(compressed.json());
        assertEquals("skipped", files.get(plain.get(0)).get("status").asText(), compressed::describe);
        assertEquals("no longer on disk; its rows from an earlier ingest were removed from the store",
                files.get(plain.get(0)).get("reason").asText());
        assertEquals(List.of(), strings(compressed.json().get("warnings")));
        assertEquals(List.of(ranks.get(0).getFileName().toString(), plain.get(1)),
                strings(db, "SELECT parse_filename(path) FROM files ORDER BY path"));
        assertReportsTheRun(run, db, ranks);

        Files.delete(run.resolve(plain.get(1)));
        Cli.Result deleted = Cli.ingestJson(db, run);
        Cli.assertExit(0, deleted);
        assertEquals(List.of("0"), strings(db, "SELECT rank::VARCHAR FROM files"));
        // The capture that only lost a file is analysed again by the ingest, as one that gained one is.
        assertEquals(List.of("1"), strings(db, "SELECT count(*)::VARCHAR FROM analyses"));
        Path out = tmp.resolve("out-one");
        Cli.assertExit(0, Cli.run("report", run.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "-q"));
        assertEquals(List.of("0"), strings(JSON.readTree(out.resolve("report.json").toFile()).at("/capture/ranks")));

        // Nothing found in the folder at all (a disk not mounted, a copy not begun): nothing is taken for gone.
        Files.move(run.resolve(ranks.get(0).getFileName()), tmp.resolve(ranks.get(0).getFileName()));
        Cli.Result empty = Cli.ingestJson(db, run);
        assertEquals(List.of("0"), strings(db, "SELECT rank::VARCHAR FROM files"), empty::describe);
    }

    /** The store "st.duckdb" once {@code run} is ingested into it. */
    private Path ingested(Path run) {
        Path db = tmp.resolve("st.duckdb");
        Cli.assertExit(0, Cli.ingestJson(db, run));
        return db;
    }

    /** A folder "run" holding a copy of each file. */
    private Path copied(List<Path> files) throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        for (Path f : files) {
            Files.copy(f, run.resolve(f.getFileName()));
        }
        return run;
    }

    /** The report of {@code run} is one capture of ranks 0 and 1, with the kernel time of {@code ranks}' own events. */
    private void assertReportsTheRun(Path run, Path db, List<Path> ranks) throws Exception {
        Path out = tmp.resolve("out");
        Cli.assertExit(0, Cli.run("report", run.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "-q"));
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertEquals(List.of("0", "1"), strings(report.at("/capture/ranks")));
        assertEquals(meanOverRanks(ranks), report.at("/phases/decode/kernel_ms_per_step/mean").asDouble(), 1e-6);
    }

    private static Map<String, JsonNode> byFile(JsonNode ingest) {
        Map<String, JsonNode> m = new HashMap<>();
        ingest.get("files").forEach(f -> m.put(Path.of(f.get("path").asText()).getFileName().toString(), f));
        return m;
    }

    private static double meanOverRanks(List<Path> rankFiles) throws Exception {
        double sum = 0;
        for (Path f : rankFiles) {
            sum += ProfilerStepOracle.msPerStep(f, e -> GPU_EVENTS.contains(e.path("cat").asText())).stream()
                    .mapToDouble(Double::doubleValue).average().orElseThrow();
        }
        return sum / rankFiles.size();
    }

    private static List<Path> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static List<String> strings(Path db, String sql) throws Exception {
        try (StoreDb store = StoreDb.open(db)) {
            return store.strings(sql);
        }
    }
}
