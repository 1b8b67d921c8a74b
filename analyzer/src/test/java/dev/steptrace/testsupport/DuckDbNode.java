package dev.steptrace.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.TestData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * DuckDB's Node.js client ({@code @duckdb/node-api}), a second DuckDB client that reads the store
 * outside the JVM: {@code src/test/resources/duckdb-node/query.cjs} run with {@code node}. The package
 * is looked for in {@code $STEPTRACE_DUCKDB_NODE/node_modules}, else
 * {@code ~/.cache/steptrace/duckdb-node/node_modules}, where {@code .ci/run} installs the version that
 * {@code duckdb-node/package.json} pins. Without node or the package, a test skips with a message saying
 * how to install it; with {@code STEPTRACE_REQUIRE_DUCKDB_NODE=1} (CI) it fails instead.
 */
public final class DuckDbNode {
    private static final ObjectMapper JSON = new ObjectMapper();

    private DuckDbNode() {}

    /** The directory holding {@code node_modules/@duckdb/node-api}, or skips (fails on CI) when there is none. */
    public static Path modulesOrSkip() {
        String env = System.getenv("STEPTRACE_DUCKDB_NODE");
        Path prefix = env != null && !env.isBlank() ? Path.of(env)
                : Path.of(System.getProperty("user.home"), ".cache", "steptrace", "duckdb-node");
        Path modules = prefix.resolve("node_modules");
        String missing = null;
        if (!Programs.works("node", "--version")) {
            missing = "node is not on the PATH";
        } else if (!Files.isRegularFile(modules.resolve("@duckdb/node-api/package.json"))) {
            missing = "@duckdb/node-api is not installed in " + modules + " (npm install --prefix " + prefix
                    + " " + TestData.repoRoot().relativize(resources()) + ", as .ci/run does)";
        }
        if (missing != null && "1".equals(System.getenv("STEPTRACE_REQUIRE_DUCKDB_NODE"))) {
            Assertions.fail("STEPTRACE_REQUIRE_DUCKDB_NODE=1 but " + missing);
        }
        Assumptions.assumeTrue(missing == null, "SKIPPED: the second DuckDB client is absent: " + missing);
        return modules;
    }

    /** Runs {@code sql} on the DuckDB file {@code db}, read-only, through Node.js: the rows as JSON objects. */
    public static JsonNode query(Path modules, Path db, String sql) throws IOException, InterruptedException {
        Path out = Files.createTempFile("duckdb-node", ".json");
        Path err = Files.createTempFile("duckdb-node", ".err");
        try {
            Process p = new ProcessBuilder(List.of("node", resources().resolve("query.cjs").toString(),
                    modules.toString(), db.toString(), sql))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                Assertions.fail("node did not answer within 120 s");
            }
            String stderr = Files.readString(err, StandardCharsets.UTF_8);
            Assertions.assertEquals(0, p.exitValue(), "node query.cjs failed: " + stderr);
            return JSON.readTree(out.toFile());
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static Path resources() {
        return TestData.repoRoot().resolve("analyzer/src/test/resources/duckdb-node");
    }
}
