package dev.steptrace.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the benchmark prints, not how fast anything is (docs/performance.md, "The benchmark"): the analysis
 * after ingest is timed once a round, under the pass loaded as {@code steptrace ingest} loads, and set
 * against that pass's load.
 */
class IngestBenchmarkTest {
    private static final Pattern ANALYSIS = Pattern.compile(
            " {4}then the analysis, as `steptrace ingest` runs it: [0-9.]+ s \\([0-9.]+ CPU-s\\), [0-9.]+x the load's time");

    @TempDir
    Path work;

    @Test
    void oneFileGetsTheAnalysisUnderItsPassWithTheHelperThreads() throws Exception {
        Path trace = TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz");
        List<String> lines = bench(List.of(trace), 2);
        List<Integer> analysed = indexes(lines);
        assertEquals(2, analysed.size(), String.join("\n", lines));
        for (int i : analysed) {
            assertTrue(lines.get(i - 2).startsWith("ingest, 1 file thread + insert, gunzip threads"), lines.get(i - 2));
            assertTrue(lines.get(i - 1).startsWith("    thread CPU:"), lines.get(i - 1));
        }
    }

    @Test
    void severalFilesGetItUnderTheirPassOnAllThreads() throws Exception {
        Path a = work.resolve("a");
        Path b = work.resolve("b");
        Files.createDirectories(a);
        Files.createDirectories(b);
        Path trace = TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz");
        Files.copy(trace, a.resolve(trace.getFileName()));
        Files.copy(trace, b.resolve(trace.getFileName()));
        List<String> lines = bench(List.of(a, b), 1);
        List<Integer> analysed = indexes(lines);
        assertEquals(1, analysed.size(), String.join("\n", lines));
        assertTrue(lines.get(analysed.get(0) - 2).startsWith("ingest, 2 file threads"), String.join("\n", lines));
    }

    private List<String> bench(List<Path> inputs, int repeat) throws Exception {
        StringWriter text = new StringWriter();
        new IngestBenchmark(new PrintWriter(text)).run(inputs, 2, repeat, work);
        return text.toString().lines().toList();
    }

    private static List<Integer> indexes(List<String> lines) {
        return IntStream.range(0, lines.size()).filter(i -> ANALYSIS.matcher(lines.get(i)).matches())
                .boxed().toList();
    }
}
