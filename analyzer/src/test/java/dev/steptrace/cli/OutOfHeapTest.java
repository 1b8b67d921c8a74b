package dev.steptrace.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.MainProcess;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java heap running out on a command's own thread (outside a file's load, which fails that file alone) ends
 * the command with one line saying how to give it more, not the JVM's stack trace: a user's rule file of 60,000
 * rules read at {@code -Xmx16m}.
 */
class OutOfHeapTest {
    @TempDir
    Path tmp;

    @Test
    void theHeapRunningOutOnTheCommandsThreadIsOneLine() throws Exception {
        Path rules = tmp.resolve("rules.yaml");
        try (BufferedWriter w = Files.newBufferedWriter(rules)) {
            w.write("version: 1\nrules:\n");
            for (int i = 0; i < 60_000; i++) {
                w.write("  - {id: r" + i + ", match: \"k" + i + "\", category: gemm}\n");
            }
        }
        Cli.Result r = MainProcess.run(MainProcess.command(List.of("-Xmx16m", "-XX:+UseParallelGC"),
                List.of("taxonomy", "--taxonomy", rules.toString(), "--explain", "k1")));
        assertEquals(1, r.exit(), r::describe);
        assertEquals("steptrace: ran out of Java heap (-Xmx16m): give steptrace more with"
                + " STEPTRACE_JAVA_OPTS=\"-Xmx32m -XX:+UseParallelGC\"\n", r.err(), r::describe);
        assertFalse(r.out().contains("Exception"), r::describe);
    }
}
