package dev.steptrace.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.analysis.HostSyncCalls;
import dev.steptrace.api.Capture;
import dev.steptrace.api.Steptrace;
import dev.steptrace.common.StepSource;
import dev.steptrace.store.KeptAnalysis;
import dev.steptrace.store.Sql;
import dev.steptrace.testsupport.KinetoTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A step's kept critical path does not depend on the run of steps it is replayed in (docs/whatif.md, "The
 * model"): the launch latency and stream gap that decide which of two dependencies set an operation's start are
 * the rank's (replay_latencies), not each run's.
 */
class CriticalPathsTest {
    @TempDir
    Path tmp;

    /**
     * Six steps 200 µs apart on one stream. Steps 0 and 1: 10 kernels each, launched 1 µs before they start;
     * steps 2, 3 and 5: 10 kernels each launched 9 µs before, as are step 4's first 8 and its kernel P (launched
     * at 900, runs 909-911). Each of them finds its stream free when launched. Step 4's kernel X is launched at
     * 904.5 and starts at 914, 3 µs after P ends; a cudaDeviceSynchronize then waits for it. The rank's launch
     * latency: 59 samples, 20 of 1 µs, the 10th percentile 1 µs; its stream gap: X's 3 µs, the only operation
     * queued behind another. X's start is then set by P (slack 0 against 8.5 µs from its launch). Steps 3 to 5
     * alone would say a latency of 9 µs: X's start would be set by its launch (0.5 µs against 2 µs).
     */
    @Test
    void aStepsCriticalPathIsTheSameWhenItIsReplayedAlone() throws Exception {
        KinetoTrace t = new KinetoTrace();
        for (int n = 0; n < 6; n++) {
            t.step(n, 200 * n, 150);
            for (int i = 0; i < (n == 4 ? 8 : 10); i++) {
                double launch = n < 2 ? 200 * n + 10 * i + 1 : 200 * n + 12 * i + 1;
                t.kernel("elementwise_kernel", 7, launch + (n < 2 ? 1 : 9), n < 2 ? 3 : 2, launch);
            }
        }
        t.kernel("gemm_p", 7, 909, 2, 900).kernel("gemm_x", 7, 914, 5, 904.5).call("cudaDeviceSynchronize", 907, 13, 1);
        Path dir = Files.createDirectories(tmp.resolve("trace"));
        t.write(dir);
        try (Steptrace st = Steptrace.openTraces(dir, tmp.resolve("a.duckdb")); Capture capture = st.capture()) {
            Connection c = st.connection();
            String mine = "capture_id = " + capture.id() + " AND analysis_key = '" + capture.analysisKey() + "'";
            assertEquals(1, Sql.count(c, "SELECT count(*) FROM replay_latencies WHERE " + mine
                    + " AND launch_latency_ns = 1000 AND launch_samples = 59 AND stream_gap_ns = 3000"
                    + " AND stream_gap_samples = 1"));
            // kept: the rank's steps in one run; then each step in a run of its own, with the steps around it
            Sql.exec(c, "CREATE TEMP TABLE kept AS SELECT * FROM critical_path_base WHERE " + mine);
            Sql.exec(c, "DELETE FROM critical_path_base WHERE " + mine);
            CriticalPaths.keep(new KeptAnalysis(c, capture.id(), capture.analysisKey()),
                    StepSource.of(capture.stepSource()).gpuAnchored(), HostSyncCalls.NAMES, 1);
            long kept = Sql.count(c, "SELECT count(*) FROM kept");
            assertTrue(Sql.count(c, "SELECT count(DISTINCT step) FROM kept") >= 5, "the steps' paths");
            assertEquals(kept, Sql.count(c, "SELECT count(*) FROM critical_path_base WHERE " + mine));
            assertEquals(0, Sql.count(c, "SELECT count(*) FROM (SELECT * FROM kept EXCEPT ALL"
                    + " SELECT * FROM critical_path_base WHERE " + mine + ")"));
        }
    }
}
