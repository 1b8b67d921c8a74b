package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.KinetoTrace;
import dev.steptrace.testsupport.ReportJson;
import dev.steptrace.testsupport.RuleEvidence;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * host_syncs_in_graph_steps (docs/warnings.md) on hand-made steps of 1000 µs (two each) whose figures follow from
 * their construction, and on the sample captures.
 */
class GraphStepSyncTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GEMM = "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT";

    @TempDir
    Path tmp;

    /**
     * A graph replay (launched at 10, three 60 µs kernels 20-200), then .item() (aten::_local_scalar_dense 100-300:
     * cudaMemcpyAsync 110-115, cudaStreamSynchronize 120-270), then a second replay launched at 300 (310-330). The GPU
     * goes idle at 200 while the synchronize runs, until 310: 110 µs of idle per step caused by the sync, above the
     * 20 µs threshold. The op's two calls per step are named.
     */
    @Test
    void itemBetweenTwoReplays() throws Exception {
        Path db = tmp.resolve("item.duckdb");
        JsonNode r = report(steps(true, true), "item", db);
        JsonNode w = ReportJson.warning(r, "host_syncs_in_graph_steps");
        String m = w.get("message").asText();
        assertTrue(m.contains("inside the 2 step(s) that replay CUDA graphs") && m.contains("aten::_local_scalar_dense"
                + " (cudaStreamSynchronize, cudaMemcpyAsync, 2 call(s) and 110 µs of GPU idle time per step)"), m);
        assertEquals(20, w.at("/thresholds/min_idle_us").asDouble());
        try (Connection c = DuckDb.connect(db, new java.util.Properties())) {
            assertEquals(List.of("unknown|aten::_local_scalar_dense|cudaStreamSynchronize|2|300000|220000|2",
                            "unknown|aten::_local_scalar_dense|cudaMemcpyAsync|2|10000|0|2"),
                    RuleEvidence.rows(c, w.get("evidence").asText()));
        }
    }

    /** The same .item() in eager steps (no replay), and replays followed by no sync at all: no finding. */
    @Test
    void eagerStepsOrNoSyncAreNoFinding() throws Exception {
        assertFalse(ReportJson.warningCodes(report(steps(false, true), "eager", tmp.resolve("eager.duckdb"))).contains("host_syncs_in_graph_steps"));
        assertFalse(ReportJson.warningCodes(report(steps(true, false), "nosync", tmp.resolve("nosync.duckdb"))).contains("host_syncs_in_graph_steps"));
    }

    /** The samples synchronize once per step after the replay (torch.cuda.synchronize(), no CPU op): no finding. */
    @ParameterizedTest
    @ValueSource(strings = {"h200-tp2-moe-decode/graph-nccl-ll", "h200-tp2-moe-decode/graph-nccl-simple"})
    void noFindingOnTheSamples(String capture) throws Exception {
        TestData.sharedOrSkip();
        Path out = tmp.resolve("out-sample");
        assertEquals(0, Main.run("report", TestData.sampleTraces().resolve(capture).toString(), "--db",
                tmp.resolve("s.duckdb").toString(), "--out", out.toString(), "--format", "json", "--quiet"));
        assertFalse(ReportJson.warningCodes(JSON.readTree(out.resolve("report.json").toFile())).contains("host_syncs_in_graph_steps"));
    }

    /** Two steps: with graphs, two replays (else the same kernels launched one by one); with item, the .item(). */
    private static KinetoTrace steps(boolean graphs, boolean item) {
        KinetoTrace t = new KinetoTrace();
        for (int n = 1; n <= 2; n++) {
            double b = (n - 1) * 1000;
            t.step(n, b, 1000);
            if (graphs) {
                t.graph(b + 10, 7, b + 20, 60, GEMM, GEMM, GEMM);
            } else {
                t.kernel(GEMM, 7, b + 20, 60).kernel(GEMM, 7, b + 80, 60).kernel(GEMM, 7, b + 140, 60);
            }
            if (item) {
                t.op("aten::_local_scalar_dense", b + 100, 200, 10 * n)
                        .call("cudaMemcpyAsync", b + 110, 5, 10 * n)
                        .call("cudaStreamSynchronize", b + 120, 150, 10 * n);
            }
            if (graphs) {
                t.graph(b + 300, 7, b + 310, 20, GEMM);
            } else {
                t.kernel(GEMM, 7, b + 310, 20);
            }
        }
        return t;
    }

    private JsonNode report(KinetoTrace t, String name, Path db) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        t.write(dir);
        Path out = tmp.resolve("out-" + name);
        assertEquals(0, Main.run("report", dir.toString(), "--db", db.toString(), "--out", out.toString(), "--format",
                "json", "--quiet"));
        return JSON.readTree(out.resolve("report.json").toFile());
    }
}
