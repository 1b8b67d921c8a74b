package dev.steptrace.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.ingest.kineto.KinetoImporter;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the benchmark prints, not how fast anything is (docs/performance.md, "Kineto ingest"): the analysis
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

    /** A small trace beside a large one (a run's config, a synth output's EXPECTED.json) loads within its load. */
    @Test
    void aSmallFileBesideOneLargeIsMeasuredAsOneFile() throws Exception {
        Path dir = Files.createDirectories(work.resolve("run"));
        Path trace = TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz");
        Files.copy(trace, dir.resolve(trace.getFileName()));
        // Named to come first: the large file is found by its size, not its place.
        Files.copy(TestData.baseTrace(), dir.resolve("a_small.pt.trace.json"));
        assertTrue(Files.size(TestData.baseTrace()) * 4 < Files.size(trace), "the small file is under a quarter");
        List<String> lines = bench(List.of(dir), 1);
        assertTrue(lines.contains("measured as one file: 1 smaller file beside it, under a quarter of its size"),
                String.join("\n", lines));
        List<Integer> analysed = indexes(lines);
        assertEquals(1, analysed.size(), String.join("\n", lines));
        assertTrue(lines.get(analysed.get(0) - 2).startsWith("ingest, 1 file thread + insert, gunzip threads"),
                String.join("\n", lines));
    }

    @Test
    void aWorkDirThatIsNotADirectoryIsAUsageErrorBeforeAnyPass() throws Exception {
        Path missing = work.resolve("missing");
        Cli.Result r = Cli.run("bench", TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz")
                .toString(), "--work-dir", missing.toString());
        Cli.assertExit(2, r);
        assertEquals("steptrace: --work-dir " + missing + ": no such directory (see steptrace bench --help)\n", r.err(),
                r::describe);
        assertEquals("", r.out(), r::describe);

        Path file = Files.writeString(work.resolve("file"), "");
        Cli.Result onFile = Cli.run("bench", TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz")
                .toString(), "--work-dir", file.toString());
        Cli.assertExit(2, onFile);
        assertEquals("steptrace: --work-dir " + file + ": not a directory (see steptrace bench --help)\n", onFile.err(),
                onFile::describe);
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

    /**
     * A scan worker of an earlier pass that is still alive (they are shut down, not waited for) counts with
     * what it spends during the pass only: here it burns 300 ms of CPU before the pass and 100 ms during it.
     */
    @Test
    void aThreadOfAnEarlierPassCountsOnlyWhatItSpendsDuringThePass() throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        CountDownLatch burnt = new CountDownLatch(1);
        CountDownLatch passBegun = new CountDownLatch(1);
        CountDownLatch burntAgain = new CountDownLatch(1);
        CountDownLatch passOver = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            try {
                burn(mx, 300);
                burnt.countDown();
                passBegun.await();
                burn(mx, 100);
                burntAgain.countDown();
                passOver.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, KinetoImporter.SCAN_THREAD + " of an earlier pass");
        worker.start();
        try {
            assertTrue(burnt.await(30, TimeUnit.SECONDS));
            IngestBenchmark.ThreadCpu cpu = new IngestBenchmark.ThreadCpu();
            try (cpu) {
                passBegun.countDown();
                assertTrue(burntAgain.await(30, TimeUnit.SECONDS));
                Thread.sleep(50); // a few of the sampler's 10 ms rounds after the last burn
            }
            String summary = cpu.summary();
            Matcher scan = Pattern.compile("scan ([0-9.]+) s").matcher(summary);
            assertTrue(scan.find(), summary);
            double seconds = Double.parseDouble(scan.group(1));
            assertTrue(seconds >= 0.09 && seconds < 0.2, summary);
        } finally {
            passOver.countDown();
            worker.join();
        }
    }

    /** Spins until this thread has used {@code ms} more milliseconds of CPU. */
    private static void burn(ThreadMXBean mx, long ms) {
        long until = mx.getCurrentThreadCpuTime() + ms * 1_000_000;
        long x = 0;
        while (mx.getCurrentThreadCpuTime() < until) {
            x += System.nanoTime() & 1;
        }
        if (x == -1) {
            throw new AssertionError(); // keeps the loop from being optimised away
        }
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
