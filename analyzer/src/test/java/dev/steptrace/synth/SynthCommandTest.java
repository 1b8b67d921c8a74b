package dev.steptrace.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.cli.Main;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code steptrace synth} on the command line: exit codes and what it leaves behind. */
class SynthCommandTest {
    @TempDir
    Path tmp;

    @Test
    void writesTheTracesAndExpectedJson() throws IOException {
        Path out = tmp.resolve("capture");
        int rc = Main.run("synth", "--preset", "moe-tp8-eager", "--ranks", "2", "--steps", "1", "--prefill-steps", "0",
                "--batch", "4", "--scale", "gemm=2", "--out", out.toString(), "-q");
        assertEquals(0, rc);
        assertTrue(Files.exists(out.resolve("EXPECTED.json")));
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(2, files.filter(p -> p.getFileName().toString().matches(
                    "dp0_pp0_tp\\d_dcp0_ep0_rank\\d\\.\\d+\\.pt\\.trace\\.json\\.gz")).count());
        }
        String expected = Files.readString(out.resolve("EXPECTED.json"));
        assertTrue(expected.contains("\"batch\" : 4"), expected.substring(0, 300));
        assertTrue(expected.contains("execute_context_0(0)_generation_4(4)"));
        // A second run into its own output directory replaces the previous capture.
        assertEquals(0, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "1", "--steps", "1", "--prefill-steps", "0",
                "--no-gzip", "--out", out.toString(), "-q"));
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(2, files.count());
        }
    }

    @Test
    void badUsageExitsWithTwo() throws IOException {
        String out = tmp.resolve("x").toString();
        assertEquals(2, Main.run("synth", "--preset", "dense-tp1", "--ranks", "2", "--steps", "1", "--out", out));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--scale", "attention"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--scale", "attention=fast"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--scale", "flash=1.2"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--scale", "gemm=-1"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--slow-rank", "2=1.2"), "rank out of range");
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--slow-rank", "1=0"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--slow-rank", "one=2"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "0", "--steps", "1", "--out", out));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "0", "--out", out));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1", "--out", out,
                "--target-size", "lots"));
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "2", "--steps", "1"));
        // Real traces in --out are never overwritten.
        Path foreign = tmp.resolve("foreign");
        Files.createDirectories(foreign);
        Files.writeString(foreign.resolve("rank0.123.pt.trace.json"), "{}");
        assertEquals(2, Main.run("synth", "--preset", "moe-tp8-graph", "--ranks", "1", "--steps", "1", "--out",
                foreign.toString(), "-q"));
        assertEquals("{}", Files.readString(foreign.resolve("rank0.123.pt.trace.json")));
    }
}
