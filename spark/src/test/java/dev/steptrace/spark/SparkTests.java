package dev.steptrace.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/** What the Spark tests share: the repository's sample captures and a local session. */
final class SparkTests {
    private SparkTests() {}

    /** {@code sample-traces/} of the repository (tests run in the module's directory). */
    static Path sampleTraces() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("sample-traces"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no sample-traces/ above " + Path.of("").toAbsolutePath());
        }
        return dir.resolve("sample-traces");
    }

    /** A local session of {@code cores} cores, small and quiet (no UI, few shuffle partitions). */
    static SparkSession localSession(int cores) {
        return SparkSession.builder().master("local[" + cores + "]").appName("steptrace-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", String.valueOf(cores))
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .getOrCreate();
    }
}
