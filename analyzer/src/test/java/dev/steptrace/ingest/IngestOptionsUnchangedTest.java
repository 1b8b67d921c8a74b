package dev.steptrace.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.StoreDb;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file loaded without its python_function events (but its nn.Module ranges, kept by default) is not "unchanged"
 * to an ingest that asks for them all: it is loaded again, with them. A file loaded with them stays as it is when ingested again without the option.
 */
class IngestOptionsUnchangedTest {
    @TempDir
    Path tmp;

    @Test
    void askingForPythonFunctionsLoadsAFileLoadedWithoutThemAgain() throws Exception {
        String json = Files.readString(TestData.baseTrace());
        // Two python_function events inside the step, written into the event list's head.
        String python = """
                  {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 823, "tid": 823,
                   "ts": 1005.000, "dur": 30.000, "args": {"Python id": 7}},
                  {"ph": "X", "cat": "python_function", "name": "torch/nn/functional.py(123): linear", "pid": 823,
                   "tid": 823, "ts": 1006.000, "dur": 25.000, "args": {"Python id": 8}},
                """;
        int list = json.indexOf('[', json.indexOf("\"traceEvents\"")) + 1;
        Path trace = Files.writeString(Files.createDirectories(tmp.resolve("run")).resolve("rank0.pt.trace.json"),
                json.substring(0, list) + "\n" + python + json.substring(list), StandardCharsets.UTF_8);
        Path db = tmp.resolve("store.duckdb");

        Cli.Result dropped = Cli.ingestJson(db, trace);
        Cli.assertExit(0, dropped);
        assertEquals(1, pythonRows(db), () -> "the module range alone is kept by default; " + dropped.describe());

        Cli.Result kept = Cli.run("ingest", trace.toString(), "--db", db.toString(), "--json", "-q",
                "--keep-python-functions");
        Cli.assertExit(0, kept);
        assertEquals("ingested", kept.file("rank0.pt.trace.json").path("status").asText(), kept::describe);
        assertEquals(2, pythonRows(db));

        // Without the option, and with it again: the store already holds what either asks for.
        Cli.Result without = Cli.ingestJson(db, trace);
        assertEquals("unchanged", without.file("rank0.pt.trace.json").path("status").asText(), without::describe);
        Cli.Result with = Cli.run("ingest", trace.toString(), "--db", db.toString(), "--json", "-q",
                "--keep-python-functions");
        assertEquals("unchanged", with.file("rank0.pt.trace.json").path("status").asText(), with::describe);
        assertEquals(2, pythonRows(db));
    }

    /**
     * A copy of a file loaded without its python_function events, ingested alone asking for them, is skipped as
     * that file's copy, and says that the file holds none: else the events asked for would be silently missing.
     */
    @Test
    void aCopyOfAFileLoadedWithoutPythonFunctionsSaysSo() throws Exception {
        Path run = Files.createDirectories(tmp.resolve("run"));
        Path trace = Files.copy(TestData.baseTrace(), run.resolve("rank0.pt.trace.json"));
        Path db = tmp.resolve("store.duckdb");
        Cli.assertExit(0, Cli.ingestJson(db, trace));
        Path copy = Files.copy(trace, run.resolve("rank0-copy.pt.trace.json"));
        Cli.Result kept = Cli.run("ingest", copy.toString(), "--db", db.toString(), "--json", "-q",
                "--keep-python-functions");
        Cli.assertExit(0, kept);
        assertEquals("same content as rank0.pt.trace.json (a copy of the same rank?); rank0.pt.trace.json was loaded"
                        + " without its python_function events: ingest it with --keep-python-functions",
                kept.file("rank0-copy.pt.trace.json").path("reason").asText(), kept::describe);
    }

    private static long pythonRows(Path db) throws Exception {
        try (StoreDb s = StoreDb.open(db)) {
            return s.count("SELECT count(*) FROM cpu_ops WHERE kind = 'python_function'");
        }
    }
}
