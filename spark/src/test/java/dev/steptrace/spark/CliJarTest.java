package dev.steptrace.spark;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The CLI's shaded jar carries no Spark and no Scala: the Spark module's libraries stay out of it. */
class CliJarTest {
    @Test
    void theCliJarHasNoSpark() throws Exception {
        Path jar = SparkTests.sampleTraces().resolveSibling("analyzer/target/steptrace.jar");
        Assumptions.assumeTrue(Files.isRegularFile(jar), "SKIPPED: " + jar + " is not built (mvn package builds it"
                + " before this module's tests)");
        try (JarFile j = new JarFile(jar.toFile())) {
            List<String> foreign = j.stream().map(e -> e.getName())
                    .filter(n -> n.startsWith("org/apache/spark/") || n.startsWith("scala/") || n.startsWith("org/apache/hadoop/"))
                    .limit(5).toList();
            assertTrue(foreign.isEmpty(), "Spark in the CLI jar: " + foreign);
            assertTrue(j.getEntry("dev/steptrace/cli/Main.class") != null, "the CLI jar is the CLI's");
        }
    }
}
