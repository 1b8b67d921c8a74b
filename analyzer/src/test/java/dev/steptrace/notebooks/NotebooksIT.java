package dev.steptrace.notebooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.TestData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import jdk.jshell.DeclarationSnippet;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.JShellException;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.UnresolvedReferenceException;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every code cell of every notebook under {@code notebooks/}, in order, in JShell against the
 * built jar ({@code analyzer/target/steptrace.jar}, hence an integration test: failsafe runs it after
 * {@code package}), so that the notebooks cannot rot: a snippet that does not compile, a reference
 * that does not resolve, or an exception fails the notebook, with the cell and the console output.
 *
 * <p>As Jupyter would, it runs from the notebooks' directory (failsafe's working directory), so their
 * relative paths ({@code ../sample-traces/...}) hold. Line magics ({@code %jars ...}) are IJava's: the
 * jar is put on JShell's class path instead. Each notebook gets a fresh JShell (a VM of its own) with
 * {@code steptrace.notebook.out} pointing under {@code target/notebook-it/<notebook>/}: the store and
 * the charts go there, never into the repository. Every chart a notebook saves
 * ({@code Charts.save(..., out.resolve("x.png"))}) must exist afterwards and be a PNG or SVG; the
 * transcript of each run (cells, values, output) is left beside them.
 */
class NotebooksIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The chart files a notebook saves: {@code out.resolve("name.png")} in a code cell. */
    private static final Pattern SAVED_CHART = Pattern.compile("out\\.resolve\\(\"([^\"]+\\.(?:png|svg))\"\\)");
    private static final long NOTEBOOK_TIMEOUT_SECONDS = 180;

    @Test
    void notebooksAreCommittedWithoutOutputsForTheJavaKernel() throws IOException {
        List<Path> notebooks = notebooks();
        assertTrue(notebooks.size() >= 3, "notebooks: " + notebooks);
        for (Path nb : notebooks) {
            JsonNode doc = JSON.readTree(nb.toFile());
            assertEquals("java", doc.at("/metadata/kernelspec/name").asText(), nb + ": IJava's kernelspec");
            assertEquals("java", doc.at("/metadata/kernelspec/language").asText(), nb.toString());
            List<JsonNode> code = codeCells(doc);
            assertFalse(code.isEmpty(), nb + " has no code cell");
            assertTrue(source(code.get(0)).strip().startsWith("%jars ../analyzer/target/steptrace.jar"),
                    nb + ": the first code cell adds the jar");
            for (JsonNode cell : code) {
                assertEquals(0, cell.path("outputs").size(), nb + ": outputs are stripped before commit");
                assertTrue(cell.path("execution_count").isNull(), nb + ": execution_count is null in git");
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCellOfEveryNotebookRunsInJShell() throws IOException {
        Path jar = Path.of(System.getProperty("steptrace.jar",
                TestData.repoRoot().resolve("analyzer/target/steptrace.jar").toString()));
        assertTrue(Files.isRegularFile(jar), jar + " is missing: run `mvn -B verify` (the jar is built by package)");
        Path outRoot = Path.of(System.getProperty("steptrace.notebook.out",
                TestData.repoRoot().resolve("analyzer/target/notebook-it").toString()));
        Path cwd = Path.of("").toAbsolutePath();
        assertEquals(notebooksDir(), cwd, "the notebooks run from their own directory, as in Jupyter"
                + " (failsafe's workingDirectory)");
        return notebooks().stream().map(nb -> DynamicTest.dynamicTest(nb.getFileName().toString(),
                () -> run(nb, jar, outRoot.resolve(nb.getFileName().toString().replace(".ipynb", "")))));
    }

    private static void run(Path notebook, Path jar, Path out) throws Exception {
        deleteTree(out);
        Files.createDirectories(out);
        JsonNode doc = JSON.readTree(notebook.toFile());
        List<String> cells = codeCells(doc).stream().map(NotebooksIT::source).toList();
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PrintStream printer = new PrintStream(console, true, StandardCharsets.UTF_8);
        StringBuilder transcript = new StringBuilder();
        long start = System.nanoTime();
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try (JShell shell = JShell.builder()
                .out(printer).err(printer)
                .remoteVMOptions("--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx1g", "-Djava.awt.headless=true",
                        "-Dsteptrace.notebook.out=" + out.toAbsolutePath())
                .build()) {
            shell.addToClasspath(jar.toAbsolutePath().toString());
            Future<?> done = runner.submit(() -> {
                for (int i = 0; i < cells.size(); i++) {
                    runCell(shell, notebook, i + 1, cells.get(i), transcript, console);
                }
                return null;
            });
            try {
                done.get(NOTEBOOK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                shell.stop();
                fail(notebook.getFileName() + " ran longer than " + NOTEBOOK_TIMEOUT_SECONDS + " s\n" + tail(transcript, console));
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof AssertionError a) {
                    throw a;
                }
                throw e;
            }
        } finally {
            runner.shutdownNow();
            transcript.append("\n--- console\n").append(console.toString(StandardCharsets.UTF_8));
            Files.writeString(out.resolve("transcript.txt"), transcript);
        }
        System.out.printf(Locale.ROOT, "%s: %d code cells in %.1f s%n", notebook.getFileName(), cells.size(),
                (System.nanoTime() - start) / 1e9);
        Set<String> charts = new LinkedHashSet<>();
        for (String cell : cells) {
            Matcher m = SAVED_CHART.matcher(cell);
            while (m.find()) {
                charts.add(m.group(1));
            }
        }
        assertFalse(charts.isEmpty(), notebook + " saves no chart");
        for (String name : charts) {
            Path file = out.resolve(name);
            assertTrue(Files.isRegularFile(file) && Files.size(file) > 1000, notebook.getFileName() + " did not write " + file);
            byte[] head = Arrays.copyOf(Files.readAllBytes(file), 400);
            String text = new String(head, StandardCharsets.ISO_8859_1);
            if (name.endsWith(".png")) {
                assertEquals("\u0089PNG", text.substring(0, 4), file + " is not a PNG");
            } else {
                assertTrue(text.contains("<svg"), file + " is not an SVG");
            }
        }
    }

    /** Evaluates a cell snippet by snippet, as IJava does; fails on the first problem. */
    private static void runCell(JShell shell, Path notebook, int cellNo, String cellSource, StringBuilder transcript,
                                ByteArrayOutputStream console) {
        String code = withoutMagics(cellSource);
        transcript.append("\n=== cell ").append(cellNo).append('\n').append(cellSource).append('\n');
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        String remaining = code;
        String lastValue = null;
        snippets:
        while (true) {
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(remaining);
            String snippet;
            switch (info.completeness()) {
                case EMPTY:
                    break snippets;
                case COMPLETE, COMPLETE_WITH_SEMI:
                    snippet = info.source();
                    remaining = info.remaining();
                    break;
                case DEFINITELY_INCOMPLETE, CONSIDERED_INCOMPLETE:
                    fail(where(notebook, cellNo) + " ends in an incomplete snippet:\n" + remaining);
                    return;
                default: // UNKNOWN: evaluate it, for the compiler's diagnostics
                    snippet = info.source() != null ? info.source() : remaining;
                    remaining = info.source() != null ? info.remaining() : "";
            }
            for (SnippetEvent e : shell.eval(snippet)) {
                if (e.causeSnippet() != null) {
                    continue; // an update of an earlier snippet caused by this one
                }
                String problem = problem(shell, e);
                if (problem != null) {
                    fail(where(notebook, cellNo) + ": " + problem + "\n--- snippet:\n" + snippet.strip()
                            + "\n" + tail(transcript, console));
                }
                lastValue = e.value();
            }
        }
        // What Jupyter shows under the cell: the value of its last snippet, when it has one.
        if (lastValue != null && !lastValue.isEmpty()) {
            transcript.append("--> ").append(lastValue).append('\n');
        }
    }

    private static String problem(JShell shell, SnippetEvent e) {
        Snippet s = e.snippet();
        if (e.status() == Snippet.Status.REJECTED) {
            String diagnostics = shell.diagnostics(s).map(d -> d.getMessage(Locale.ROOT)).collect(Collectors.joining("; "));
            return "does not compile: " + (diagnostics.isEmpty() ? "(no diagnostics)" : diagnostics);
        }
        if ((e.status() == Snippet.Status.RECOVERABLE_DEFINED || e.status() == Snippet.Status.RECOVERABLE_NOT_DEFINED)
                && s instanceof DeclarationSnippet d) {
            return "refers to what is not defined: " + shell.unresolvedDependencies(d).collect(Collectors.joining(", "));
        }
        JShellException ex = e.exception();
        if (ex instanceof EvalException ee) {
            StringBuilder sb = new StringBuilder("threw ").append(ee.getExceptionClassName()).append(": ").append(ee.getMessage());
            for (StackTraceElement frame : ee.getStackTrace()) {
                sb.append("\n\tat ").append(frame);
            }
            for (Throwable c = ee.getCause(); c != null; c = c.getCause()) {
                sb.append("\nCaused by: ").append(c instanceof EvalException ce ? ce.getExceptionClassName() : c.getClass().getName())
                        .append(": ").append(c.getMessage());
            }
            return sb.toString();
        }
        if (ex instanceof UnresolvedReferenceException ur) {
            return "uses an unresolved reference: " + shell.unresolvedDependencies(ur.getSnippet()).collect(Collectors.joining(", "));
        }
        if (ex != null) {
            return "threw " + ex;
        }
        return null;
    }

    /** The cell without IJava's magic lines ({@code %jars ...}, {@code %%time}). */
    static String withoutMagics(String cell) {
        return cell.lines().filter(l -> !l.strip().startsWith("%")).collect(Collectors.joining("\n"));
    }

    private static String where(Path notebook, int cellNo) {
        return notebook.getFileName() + ", code cell " + cellNo;
    }

    private static String tail(StringBuilder transcript, ByteArrayOutputStream console) {
        String t = transcript.toString();
        String c = console.toString(StandardCharsets.UTF_8);
        return "--- transcript (end):\n" + t.substring(Math.max(0, t.length() - 3000))
                + "\n--- console (end):\n" + c.substring(Math.max(0, c.length() - 3000));
    }

    private static Path notebooksDir() {
        return TestData.repoRoot().resolve("notebooks");
    }

    private static List<Path> notebooks() throws IOException {
        try (Stream<Path> s = Files.list(notebooksDir())) {
            return s.filter(p -> p.toString().endsWith(".ipynb")).sorted().toList();
        }
    }

    private static List<JsonNode> codeCells(JsonNode doc) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode cell : doc.path("cells")) {
            if ("code".equals(cell.path("cell_type").asText())) {
                out.add(cell);
            }
        }
        return out;
    }

    /** A cell's source: a list of lines or one string in nbformat 4. */
    private static String source(JsonNode cell) {
        JsonNode s = cell.path("source");
        if (s.isArray()) {
            StringBuilder sb = new StringBuilder();
            s.forEach(line -> sb.append(line.asText()));
            return sb.toString();
        }
        return s.asText();
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
