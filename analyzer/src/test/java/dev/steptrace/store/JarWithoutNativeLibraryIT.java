package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DuckDB's JNI library travels beside steptrace.jar, not inside it: the jar copied alone fails with one
 * line naming where the library was looked for, no stack trace (DuckDB prints one of its own otherwise).
 */
class JarWithoutNativeLibraryIT {
    @TempDir
    Path tmp;

    @Test
    void theJarAloneSaysInOneLineWhereTheLibraryBelongs() throws Exception {
        Path built = Path.of(System.getProperty("steptrace.jar",
                TestData.repoRoot().resolve("analyzer/target/steptrace.jar").toString()));
        assertTrue(Files.isRegularFile(built), built + " is missing: run `mvn -B verify`");
        Path jar = Files.copy(built, tmp.resolve("steptrace.jar"));
        Path capture = TestData.sampleTraces().resolve("h200-tp2-moe-decode/graph-nccl-ll");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString(), "report", capture.toString(), "--db", tmp.resolve("st.duckdb").toString(),
                "--out", tmp.resolve("out").toString(), "-q"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the command did not finish");
        assertEquals(1, p.exitValue(), err);
        assertEquals(1, err.strip().lines().count(), err);
        assertTrue(err.startsWith("steptrace: cannot load DuckDB's native library: DuckDB JNI library not found, path: '"
                + tmp.toRealPath().resolve("libduckdb_java.so_")), err);
    }
}
