package dev.steptrace.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Where tests find real traces: the project's own captures ({@code sample-traces/}) and small traces kept
 * with the tests (both always present), and the shared {@code ../shared} of the developer and CI machines
 * (absent in a user's clone: tests that need it skip with a visible message).
 */
public final class TestData {
    private TestData() {}

    /** The repository root (tests run with the module directory as working directory). */
    public static Path repoRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("sample-traces"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("cannot find the repository root (with sample-traces/) above "
                    + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** The real captures in {@code sample-traces/}, one directory each. */
    public static Path sampleTraces() {
        return repoRoot().resolve("sample-traces");
    }

    /**
     * Small real traces kept with the tests (tens of KB each: a slice of a sample capture's rank 0, an
     * HTA AlexNet trace), in {@code analyzer/src/test/resources/small-traces/}.
     */
    public static Path smallTraces() {
        return repoRoot().resolve("analyzer/src/test/resources/small-traces");
    }

    /**
     * Real captures made for the tests on a GPU (tools/gpu-capture, one directory each with its gpu.txt), in
     * {@code analyzer/src/test/resources/real-captures/} (README.md there says what each is).
     */
    public static Path realCaptures() {
        return repoRoot().resolve("analyzer/src/test/resources/real-captures");
    }

    /**
     * The bad-input corpus's base trace ({@code analyzer/src/test/resources/bad-input/base.json}): a small
     * valid Kineto trace the ingest tests copy, change or write beside others.
     */
    public static Path baseTrace() {
        return repoRoot().resolve("analyzer/src/test/resources/bad-input/base.json");
    }

    /** {@code ../shared} next to the repository, or skips the calling test when it is absent. */
    public static Path sharedOrSkip() {
        Path shared = repoRoot().resolveSibling("shared");
        Assumptions.assumeTrue(Files.isDirectory(shared),
                "SKIPPED: " + shared + " is absent (it exists on developer and CI machines, not in a clone)");
        return shared;
    }

    /** The Kineto traces (*.json, *.json.gz) under a directory, sorted. */
    public static List<Path> kinetoTraces(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".json") || p.toString().endsWith(".json.gz"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The project's own traces (sample-traces/ and the small ones), a source for parameterized tests. */
    public static List<Path> projectKinetoTraces() {
        List<Path> all = new java.util.ArrayList<>(kinetoTraces(sampleTraces()));
        all.addAll(kinetoTraces(smallTraces()));
        return all;
    }

    /** Every Kineto trace of {@code ../shared}'s sample and compatibility collections (skips when it is absent). */
    public static List<Path> sharedKinetoTraces() {
        Path shared = sharedOrSkip();
        List<Path> all = new java.util.ArrayList<>(kinetoTraces(shared.resolve("sample-traces")));
        all.addAll(kinetoTraces(shared.resolve("compat-traces")));
        return all;
    }
}
