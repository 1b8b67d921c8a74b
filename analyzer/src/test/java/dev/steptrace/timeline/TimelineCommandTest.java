package dev.steptrace.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.MainProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code steptrace timeline} on the command line: choices, exit codes and one-line errors. */
class TimelineCommandTest {
    @TempDir
    static Path tmp;
    static Path capture;
    static Path db;

    @BeforeAll
    static void synthesize() {
        capture = tmp.resolve("small");
        db = tmp.resolve("st.duckdb");
        Cli.Result synth = Cli.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "4",
                "--prefill-steps", "1", "--out", capture.toString(), "-q");
        assertEquals(0, synth.exit(), synth::describe);
    }

    /** stderr without ingest's note that synth's EXPECTED.json beside the traces is no trace. */
    private static List<String> messages(Cli.Result r) {
        return r.err().lines().filter(l -> !l.contains("EXPECTED.json")).toList();
    }

    private static Cli.Result timeline(String... args) {
        String[] all = Stream.concat(Stream.of("timeline", capture.toString(), "--db", db.toString()), Stream.of(args))
                .toArray(String[]::new);
        return Cli.run(all);
    }

    @Test
    void choosesStepsRanksAndFormat() throws Exception {
        Path plain = tmp.resolve("out/two.json");
        Cli.Result r = timeline("--phase", "decode", "--steps", "1,3", "--ranks", "1", "--out", plain.toString(), "-q");
        Cli.assertExit(0, r);
        assertEquals(List.of(), messages(r), "--quiet: no summary on stderr");
        JsonNode doc = new ObjectMapper().readTree(plain.toFile());
        assertEquals(List.of(1, 3), List.of(doc.at("/steptrace/steps/0").asInt(), doc.at("/steptrace/steps/1").asInt()));
        assertEquals(1, doc.at("/steptrace/processes").size(), "rank 1 only");
        assertEquals(1, doc.at("/steptrace/processes/0/rank").asInt());
        long stepSlices = 0;
        for (JsonNode e : doc.get("traceEvents")) {
            if (e.path("cat").asText().equals("step")) {
                stepSlices++;
                assertTrue(List.of(1, 3).contains(e.at("/args/step").asInt()), e.toString());
            }
        }
        assertEquals(2, stepSlices);
        try (Stream<Path> files = Files.list(plain.getParent())) {
            assertEquals(List.of(plain), files.toList(), "only the file: no temporary file left");
        }

        // default: the slowest decode step and its neighbours, in a file named after them
        Cli.Result d = timeline("--out", tmp.resolve("default.json.gz").toString());
        Cli.assertExit(0, d);
        assertTrue(d.err().matches("(?s).*decode steps? [0-9, -]+ \\(slowest decode step: \\d+, [0-9.]+ ms on rank \\d\\).*"),
                d::describe);
    }

    /**
     * Two timeline commands at once given one {@code --out} (each over a copy of the store: one store takes one
     * writer): each writes a file of its own and moves it into place, so the file left is one whole timeline
     * and no temporary file stays.
     */
    @Test
    void timelinesWrittenAtOnceToOneFileLeaveOneWholeDocument() throws Exception {
        Cli.assertExit(0, timeline("--out", tmp.resolve("first.json").toString(), "-q"));
        Path dir = Files.createDirectories(tmp.resolve("at-once"));
        Path out = dir.resolve("same.json");
        List<Future<Cli.Result>> runs = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < 2; i++) {
                Path copy = Files.copy(db, tmp.resolve("copy" + i + ".duckdb"));
                runs.add(pool.submit(() -> MainProcess.run(MainProcess.command(List.of(), List.of("timeline",
                        capture.toString(), "--db", copy.toString(), "--out", out.toString(), "-q")))));
            }
            for (Future<Cli.Result> r : runs) {
                Cli.assertExit(0, r.get());
            }
        } finally {
            pool.shutdown();
        }
        JsonNode doc = new ObjectMapper().readTree(out.toFile());
        assertTrue(doc.get("traceEvents").size() > 0);
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(out), files.toList(), "a temporary file was left");
        }
    }

    /**
     * {@code report} writes the slowest decode step's timeline beside it, the same whether it analysed
     * the capture or the store kept the report; every step row names the command that writes that
     * step's timeline, and the command does.
     */
    @Test
    void reportWritesTheSlowestStepsTimelineAndNamesTheCommands() throws Exception {
        Path out = tmp.resolve("report");
        Cli.Result first = Cli.run("report", capture.toString(), "--db", db.toString(), "--out", out.toString(), "-q");
        Cli.assertExit(0, first);
        long slowest;
        try (dev.steptrace.api.Steptrace st = dev.steptrace.api.Steptrace.open(db);
             dev.steptrace.api.Capture c = st.capture(capture.toString())) {
            // the step whose GPU span is longest on any rank, from the API's step table
            var steps = c.steps("decode");
            int best = 0;
            for (int i = 1; i < steps.rowCount(); i++) {
                if (steps.doubleColumn("span_ms").get(i) > steps.doubleColumn("span_ms").get(best)) {
                    best = i;
                }
            }
            slowest = steps.intColumn("phase_index").get(best);
        }
        Path timeline = out.resolve("timeline-decode-" + slowest + ".json.gz");
        assertTrue(first.out().lines().anyMatch(l -> l.equals(timeline.toString())), first::describe);
        JsonNode doc = read(timeline);
        assertEquals(List.of((int) slowest), ints(doc.at("/steptrace/steps")), "the slowest step alone");
        byte[] analysed = Files.readAllBytes(timeline);
        Files.delete(timeline);
        Cli.Result kept = Cli.run("report", capture.toString(), "--db", db.toString(), "--out", out.toString(), "-q");
        Cli.assertExit(0, kept);
        assertTrue(java.util.Arrays.equals(analysed, Files.readAllBytes(timeline)), "same file from the kept report");

        List<String> commands = Files.readString(out.resolve("report.md")).lines()
                .filter(l -> l.contains("`steptrace timeline "))
                .map(l -> l.substring(l.indexOf("`steptrace timeline ") + 1, l.lastIndexOf('`')))
                .toList();
        assertEquals(4 + 1, commands.size(), "a row per decode step and the prefill step: " + commands);
        String html = Files.readString(out.resolve("report.html"));
        for (String command : commands) {
            assertTrue(html.contains("<code class=\"command\">" + command + "</code>"), command);
        }
        String row = commands.get(2);
        assertEquals("steptrace timeline " + capture + " --phase decode --steps 2", row);
        Path fromRow = tmp.resolve("from-row.json.gz");
        List<String> args = new java.util.ArrayList<>(List.of(row.split(" ")).subList(1, row.split(" ").length));
        args.addAll(List.of("--db", db.toString(), "--out", fromRow.toString(), "-q"));
        Cli.assertExit(0, Cli.run(args.toArray(new String[0])));
        assertEquals(List.of(2), ints(read(fromRow).at("/steptrace/steps")));

        Path bare = tmp.resolve("report-bare");
        Cli.assertExit(0, Cli.run("report", capture.toString(), "--db", db.toString(), "--out", bare.toString(),
                "--no-timeline", "-q"));
        try (Stream<Path> files = Files.list(bare)) {
            assertTrue(files.noneMatch(p -> p.getFileName().toString().startsWith("timeline-")), "--no-timeline");
        }
    }

    private static JsonNode read(Path gz) throws Exception {
        try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(gz))) {
            return new ObjectMapper().readTree(in);
        }
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> out = new java.util.ArrayList<>();
        array.forEach(n -> out.add(n.asInt()));
        return out;
    }

    @Test
    void badOptionsAreUsageErrors() {
        for (String[] args : List.of(new String[] {"--steps", "two"}, new String[] {"--steps", "3-1"},
                new String[] {"--ranks", "-1"}, new String[] {"--align", "clocks"}, new String[] {"--phase", "warmup"})) {
            Cli.Result r = timeline(args);
            assertEquals(2, r.exit(), r::describe);
        }
    }

    @Test
    void whatTheCaptureLacksIsOneLine() throws Exception {
        for (String[] args : List.of(new String[] {"--steps", "9"}, new String[] {"--ranks", "5"},
                new String[] {"--phase", "mixed"})) {
            Cli.Result r = timeline(args);
            Cli.assertExit(1, r);
            assertEquals(1, messages(r).size(), r::describe);
        }
        Cli.Result steps = timeline("--steps", "9");
        assertTrue(steps.err().contains("no decode step 9: the decode steps are 0-3"), steps::describe);
        Cli.Result missing = Cli.run("timeline", tmp.resolve("nowhere").toString(), "--db", db.toString());
        Cli.assertExit(1, missing);
        // a directory that cannot be made (a file is in the way): one line, no "internal error"
        Path file = tmp.resolve("a-file");
        Files.writeString(file, "x");
        Cli.Result unwritable = timeline("--out", file.resolve("t.json.gz").toString());
        Cli.assertExit(1, unwritable);
        assertEquals(1, messages(unwritable).size(), unwritable::describe);
        assertTrue(messages(unwritable).get(0).contains("cannot write the timeline"), unwritable::describe);
    }
}
