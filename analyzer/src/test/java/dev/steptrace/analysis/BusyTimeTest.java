package dev.steptrace.analysis;

import static dev.steptrace.testsupport.NsysFixtures.GEMM;
import static dev.steptrace.testsupport.NsysFixtures.SESSION;
import static dev.steptrace.testsupport.NsysFixtures.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.store.Store;
import dev.steptrace.testsupport.Cli;
import dev.steptrace.testsupport.NsysCapture;
import dev.steptrace.testsupport.NsysExport.Container;
import dev.steptrace.testsupport.NsysFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Busy time ({@code t_step_metrics.busy_ns}) is the length of the union of a step's operation
 * intervals over every stream, also where steps overlap on the GPU: checked against a plain sweep on a
 * capture whose kernels overlap one another, run into the next step's, or last no time at all.
 */
class BusyTimeTest {
    private static final long PID = 5000;

    @TempDir
    Path tmp;

    @Test
    void busyIsTheUnionOfEachStepsOwnIntervalsWhenStepsOverlap() throws Exception {
        Random rnd = new Random(7);
        NsysCapture c = new NsysCapture(SESSION, PID);
        List<List<long[]>> steps = new ArrayList<>();
        long corr = 1;
        for (int s = 0; s < 6; s++) {
            long cpu = T0 + s * 1_000_000L;
            c.pushPop(cpu, 900_000, PID, "step");
            List<long[]> ops = new ArrayList<>();
            for (int k = 0; k < 40; k++) {
                // Launched inside the step, run anywhere up to half a step past the next one's start.
                long start = cpu + rnd.nextInt(1_500_000);
                long dur = k % 10 == 0 ? 0 : rnd.nextInt(k % 7 == 0 ? 600_000 : 30_000);
                c.call(cpu + 10_000 + k * 20_000L, 3_000, PID, corr, "cudaLaunchKernel_v7000", false);
                c.kernel(start, dur, 0, 7 + k % 3, corr++, GEMM);
                ops.add(new long[] {start, start + dur});
            }
            steps.add(ops);
        }
        for (int s = 1; s < steps.size(); s++) {
            long previousEnd = steps.get(s - 1).stream().mapToLong(o -> o[1]).max().orElseThrow();
            long start = steps.get(s).stream().mapToLong(o -> o[0]).min().orElseThrow();
            assertTrue(start < previousEnd, "step " + s + " starts on the GPU before step " + (s - 1) + " ends");
        }

        Path dir = Files.createDirectories(tmp.resolve("cap"));
        NsysFixtures.write(c, Container.SQLITE, dir.resolve("rank0.sqlite"));
        Cli.assertExit(0, Cli.run("ingest", dir.toString(), "--db", tmp.resolve("s.duckdb").toString(), "--quiet"));
        List<Long> busy = new ArrayList<>();
        // The ingest analysed the capture: its step metrics are in the store.
        try (Store store = Store.open(tmp.resolve("s.duckdb"));
             Statement s = store.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT busy_ns FROM step_metrics WHERE capture_id = 1"
                     + " AND analysis_key = 'default' ORDER BY step")) {
            while (rs.next()) {
                busy.add(rs.getLong(1));
            }
        }
        assertEquals(steps.stream().map(BusyTimeTest::union).toList(), busy);
    }

    /** Length of the union of the intervals: sorted by start, each adds what extends past the ones before. */
    static long union(List<long[]> intervals) {
        List<long[]> sorted = new ArrayList<>(intervals);
        sorted.sort(Comparator.comparingLong(o -> o[0]));
        long total = 0;
        long reach = Long.MIN_VALUE;
        for (long[] o : sorted) {
            if (o[1] > reach) {
                total += o[1] - Math.max(o[0], reach);
                reach = o[1];
            }
        }
        return total;
    }
}
