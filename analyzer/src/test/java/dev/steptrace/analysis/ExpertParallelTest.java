package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.cli.Main;
import dev.steptrace.store.DuckDb;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.RuleEvidence;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real expert-parallel MoE decode step (real-captures/moe-ep-b1-modules: capture_moe_decode.py --parallel ep
 * --stack on one H100, a world of one, nn.Module names and no annotations; one step): the dispatch and combine are
 * all_to_all_single, which NCCL runs as SendRecv kernels, and the experts a loop of aten::mm inside EpExperts
 * modules. Expected figures are read from the raw trace: which range encloses each GPU operation's launch call.
 */
class ExpertParallelTest {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    @TempDir
    Path tmp;

    record Range(String cat, String name, long tid, long start, long end) {
        boolean holds(long tid, long t) {
            return this.tid == tid && start <= t && t <= end;
        }
    }

    @Test
    void allToAllAndExpertGemmsAreToldApartByTheirContext() throws Exception {
        Path dir = TestData.realCaptures().resolve("moe-ep-b1-modules");
        Path trace;
        try (var files = Files.list(dir)) {
            trace = files.filter(p -> p.toString().endsWith(".pt.trace.json.gz")).findFirst().orElseThrow();
        }
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = JSON.readTree(in);
        }
        List<Range> ranges = new ArrayList<>();
        Map<Long, Range> launches = new HashMap<>();
        List<JsonNode> gpu = new ArrayList<>();
        for (JsonNode e : root.get("traceEvents")) {
            if (!"X".equals(e.path("ph").asText())) {
                continue;
            }
            String cat = e.path("cat").asText("");
            long ts = ns(e.get("ts"));
            Range r = new Range(cat, e.path("name").asText(), e.path("tid").asLong(), ts, ts + ns(e.get("dur")));
            switch (cat) {
                case "cpu_op", "user_annotation", "python_function" -> ranges.add(r);
                case "cuda_runtime", "cuda_driver" -> {
                    if (e.path("args").has("correlation")) {
                        launches.put(e.get("args").get("correlation").asLong(), r);
                    }
                }
                case "kernel", "gpu_memcpy", "gpu_memset" -> gpu.add(e);
                default -> { }
            }
        }
        long sendRecvNs = 0;
        int sendRecv = 0;
        int underAllToAll = 0;
        long expertMmNs = 0;
        for (JsonNode k : gpu) {
            Range l = launches.get(k.get("args").get("correlation").asLong());
            if (l == null) {
                continue;
            }
            if (k.get("name").asText().startsWith("ncclDevKernel_SendRecv")) {
                sendRecv++;
                sendRecvNs += ns(k.get("dur"));
                if (ranges.stream().anyMatch(r -> r.name().equals("nccl:all_to_all") && r.holds(l.tid(), l.start()))) {
                    underAllToAll++;
                }
            }
            Range op = null;
            for (Range r : ranges) {
                if (r.cat().equals("cpu_op") && r.holds(l.tid(), l.start())
                        && (op == null || r.end() - r.start() < op.end() - op.start())) {
                    op = r;
                }
            }
            boolean inExperts = ranges.stream().anyMatch(r -> r.name().startsWith("nn.Module: EpExperts_")
                    && r.holds(l.tid(), l.start()));
            if (op != null && op.name().equals("aten::mm") && inExperts) {
                expertMmNs += ns(k.get("dur"));
            }
        }
        assertTrue(sendRecv > 0, "all_to_all_single runs NCCL SendRecv kernels, even on one rank");
        assertEquals(sendRecv, underAllToAll, "every SendRecv was launched under nccl:all_to_all");
        assertTrue(expertMmNs > 0);

        Path db = tmp.resolve("ep.duckdb");
        Path out = tmp.resolve("out");
        assertEquals(0, Main.run("report", dir.toString(), "--db", db.toString(), "--out", out.toString(), "--format",
                "json", "--quiet"));
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonNode phase = report.get("phases").elements().next();
        assertEquals(1.0, phase.get("steps").asDouble(), "one step kept");
        Map<String, JsonNode> cats = new HashMap<>();
        phase.get("categories").forEach(c -> cats.put(c.get("id").asText(), c));
        JsonNode comm = cats.get("comm_other");
        assertEquals(1, comm.get("subcategories").size(), comm.toString());
        assertEquals("all_to_all", comm.at("/subcategories/0/id").asText(), "all_to_all, not send_recv");
        assertEquals(sendRecvNs / 1e6, comm.at("/subcategories/0/ms_per_step").asDouble(), 1e-9);
        assertEquals(sendRecv, comm.get("calls_per_step").asDouble(), 1e-9);
        List<String> codes = new ArrayList<>();
        report.get("warnings").forEach(w -> codes.add(w.get("code").asText()));
        assertFalse(codes.contains("moe_not_told_apart"), codes.toString());

        try (Connection c = DuckDb.connect(db, new java.util.Properties())) {
            // the experts' GEMMs: every kernel aten::mm launched inside an EpExperts module is an MoE GEMM
            assertEquals(List.of("moe_gemm|" + expertMmNs), RuleEvidence.rows(c, """
                    SELECT k.category, sum(x.ns) FROM kernel_contexts x
                    JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
                    WHERE x.op = 'aten::mm' AND x.module LIKE 'nn.Module: EpExperts_%' GROUP BY k.category"""));
            // the router's kernels (its GEMM, softmax, top-k, sort and the rest) are routing; copies stay memcpy
            List<String> router = RuleEvidence.rows(c, """
                    SELECT DISTINCT k.category FROM kernel_contexts x
                    JOIN kernel_classes k USING (capture_id, analysis_key, name, kind, variant)
                    WHERE x.module LIKE 'nn.Module: Router_%' AND x.kind = 'kernel' ORDER BY 1""");
            assertEquals(List.of("routing"), router);
            assertTrue(cats.containsKey("routing"), cats.keySet().toString());
        }
    }

    private static long ns(JsonNode us) {
        BigDecimal v = us.isTextual() ? new BigDecimal(us.asText()) : us.decimalValue();
        return v.movePointRight(3).setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
    }
}
