package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The analysis's SQL files and what holds them together: every stage file and query file has a test as data
 * ({@link StageDataTest}), and the manifest ({@link AnalysisStages}) names every stage file.
 */
class AnalysisFilesTest {
    /**
     * Every {@code .sql} under the analysis's resources has a {@code .test} under the test resources: a stage file
     * {@code X.sql} one under {@code stages/}, a query file {@code queries/P/X.sql} one under {@code queries/P/}. A test
     * is X's when it runs X ({@code stage X} or {@code query-file P/X}) and is named after it ({@code X.test},
     * {@code X-case.test}) or after the family it shares with others ({@code straggler.test} runs the
     * {@code straggler-*} queries). A file added without one fails here.
     */
    @Test
    void everySqlFileHasATest() throws IOException, URISyntaxException {
        Path main = Path.of(SqlStage.class.getResource("00-capture-files.sql").toURI()).getParent();
        Path tests = Path.of(AnalysisFilesTest.class.getResource("stages").toURI()).getParent();
        Map<String, String> missing = new TreeMap<>();
        List<Path> sqlFiles;
        try (Stream<Path> s = Files.walk(main)) {
            sqlFiles = s.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
        }
        assertTrue(sqlFiles.size() > 30, "the analysis's SQL files: " + sqlFiles);
        for (Path sql : sqlFiles) {
            Path relative = main.relativize(sql);
            String name = sql.getFileName().toString().replaceFirst("\\.sql$", "");
            boolean query = relative.startsWith("queries");
            Path dir = query ? tests.resolve(relative.getParent()) : tests.resolve("stages");
            String runs = query ? "query-file " + main.resolve("queries").relativize(sql).toString().replaceFirst("\\.sql$", "")
                    : "stage " + name;
            if (!hasTest(dir, name, runs)) {
                missing.put(relative.toString(), "no " + tests.relativize(dir) + "/" + name + "[-case].test that runs `"
                        + runs + "`");
            }
        }
        assertEquals(Map.of(), missing, "SQL files without a test as data (StageDataTest's format)");
    }

    private static boolean hasTest(Path dir, String name, String runs) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        List<Path> tests = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> p.toString().endsWith(".test")).forEach(tests::add);
        }
        for (Path t : tests) {
            String test = t.getFileName().toString().replaceFirst("\\.test$", "");
            boolean named = test.equals(name) || test.startsWith(name + "-") || name.startsWith(test + "-");
            if (named && Files.readAllLines(t).stream().anyMatch(l -> l.equals(runs) || l.startsWith(runs + " "))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The manifest names every stage file once, in the order of their numbers, but for the stages that keep the
     * analysis (run when it is kept) and macros.sql (defined before every stage).
     */
    @Test
    void theManifestNamesEveryStageFileOnce() throws IOException, URISyntaxException {
        Path main = Path.of(SqlStage.class.getResource("00-capture-files.sql").toURI()).getParent();
        TreeSet<String> files = new TreeSet<>();
        try (Stream<Path> s = Files.list(main)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sql"))
                    .map(n -> n.replaceFirst("\\.sql$", "")).forEach(files::add);
        }
        files.remove(AnalysisStages.KEEP);
        files.remove(AnalysisStages.KEEP_ROW);
        files.remove("macros");
        List<String> named = AnalysisStages.ORDER.stream().flatMap(step -> step.stages().stream()).toList();
        assertEquals(files, new TreeSet<>(named), "the manifest's stage files");
        assertEquals(named.size(), new TreeSet<>(named).size(), "each once: " + named);
        List<String> numbered = named.stream().filter(n -> Character.isDigit(n.charAt(0))).toList();
        assertEquals(numbered.stream().sorted().toList(), numbered, "in the order of their numbers");
    }
}
