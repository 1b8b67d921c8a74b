package dev.steptrace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the driver sizes the rank-local stage: tasks from the files' bytes, threads from the cores they leave. */
class RankLocalSizingTest {
    private static final long MB = 1L << 20;

    @Test
    void aSmallInputIsOneTaskOnEveryCore() {
        // The sample captures: 6 traces of 1.6-4.9 MB and a README, 15.6 MB in all.
        List<TraceRef> refs = files(7, 2_230_000);
        assertEquals(1, SparkAnalysis.tasks(refs, 2));
        assertEquals(2, SparkAnalysis.threadsPerTask(refs, 1, 2));
    }

    @Test
    void tasksAreOnePer64MbAtMostOnePerFileAndThreePerCore() {
        assertEquals(3, SparkAnalysis.tasks(files(12, 16 * MB), 4)); // 192 MB
        assertEquals(4, SparkAnalysis.tasks(files(10, 20 * MB), 4)); // 200 MB: a fourth task for the last 8 MB
        assertEquals(16, SparkAnalysis.tasks(files(16, 100 * MB), 64)); // one per file
        assertEquals(6, SparkAnalysis.tasks(files(100, 100 * MB), 2)); // 3 per core
        assertEquals(1, SparkAnalysis.tasks(files(512, 9_000), 4)); // 4.6 MB
    }

    @Test
    void theCoresAreSharedAmongTheTasksThatHoldMostOfTheBytes() {
        // 16 tasks of 100 MB on 64 cores: 4 threads each.
        assertEquals(4, SparkAnalysis.threadsPerTask(files(16, 100 * MB), 16, 64));
        // A run's small file beside a 1 GB trace: two tasks, the large one alone busy, so both get the 2 cores.
        List<TraceRef> refs = new ArrayList<>(files(1, 20_000));
        refs.add(new TraceRef("file:/c/rank0.json", "c", 1012 * MB));
        assertEquals(2, SparkAnalysis.tasks(refs, 2));
        assertEquals(2, SparkAnalysis.threadsPerTask(refs, 2, 2));
        // More tasks than cores: one thread each.
        assertEquals(1, SparkAnalysis.threadsPerTask(files(12, 100 * MB), 6, 2));
    }

    private static List<TraceRef> files(int n, long bytes) {
        List<TraceRef> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new TraceRef("file:/c/rank" + i + ".json", "c", bytes));
        }
        return out;
    }
}
