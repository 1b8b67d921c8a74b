package dev.steptrace.analysis;

import static dev.steptrace.testsupport.ReportJson.categories;
import static dev.steptrace.testsupport.ReportJson.sub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Classes from the launching op, annotation or module (docs/taxonomy.md, "Classes from the launching op") and the
 * findings that depend on them (moe_not_told_apart, graph_input_copies of docs/warnings.md), on hand-made Kineto
 * captures whose expected figures follow from their construction (durations in µs, two steps each).
 */
class LaunchContextTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SEND_RECV = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
    private static final String GEMM = "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT";
    private static final String TOPK = "void at::native::sbtopk::gatherTopK<float, unsigned int, 1, false>(at::cuda::detail"
            + "::TensorInfo<float const, unsigned int>, unsigned int, unsigned int, bool, unsigned int, unsigned int,"
            + " at::cuda::detail::TensorInfo<float, unsigned int>, unsigned int, at::cuda::detail::TensorInfo<long,"
            + " unsigned int>, unsigned int)";
    private static final String COPY = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
            + "(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::CopyFunctor<float, 2, 1,"
            + " 1>, at::native::(anonymous namespace)::Copy<float, float> >(at::native::(anonymous namespace)::"
            + "TensorListMetadata<2>, at::native::(anonymous namespace)::CopyFunctor<float, 2, 1, 1>, at::native::"
            + "(anonymous namespace)::Copy<float, float>)";

    @TempDir
    Path tmp;

    /** How the MoE layer of {@link #expertParallel} is marked: not at all, by annotations, or by nn.Module ranges. */
    enum Marks { NONE, ANNOTATIONS, MODULES }

    /**
     * An expert-parallel MoE step (1000 µs from b), all on stream 7: dispatch SendRecv (30) under nccl:all_to_all,
     * the router's top-k (5), two experts as aten::mm (40 each), combine SendRecv (30) under nccl:all_to_all, a
     * pipeline send SendRecv (10) under nccl:send, a dense aten::mm (50) outside the MoE layer. The router and the
     * experts are inside 'moe_router' / 'moe_experts' annotations, or 'nn.Module: Router_0' / 'nn.Module: FusedMoE_0'
     * ranges, or nothing.
     */
    private static KinetoTrace expertParallel(Marks marks) {
        KinetoTrace t = new KinetoTrace();
        for (int n = 1; n <= 2; n++) {
            double b = (n - 1) * 1000;
            t.step(n, b, 1000);
            t.range("cpu_op", "nccl:all_to_all", b + 10, 20).kernel(SEND_RECV, 7, b + 20, 30);
            if (marks == Marks.MODULES) {
                // with_stack's other Python functions: not kept by default, never a context
                t.range("python_function", "model.py(42): forward", b + 5, 900);
            }
            if (marks != Marks.NONE) {
                t.range(marks == Marks.MODULES ? "python_function" : "user_annotation",
                        marks == Marks.MODULES ? "nn.Module: Router_0" : "moe_router", b + 100, 50);
                t.range(marks == Marks.MODULES ? "python_function" : "user_annotation",
                        marks == Marks.MODULES ? "nn.Module: FusedMoE_0" : "moe_experts", b + 200, 300);
            }
            t.range("cpu_op", "aten::topk", b + 110, 20).kernel(TOPK, 7, b + 120, 5);
            t.range("cpu_op", "aten::mm", b + 210, 20).kernel(GEMM, 7, b + 220, 40);
            t.range("cpu_op", "aten::mm", b + 260, 20).kernel(GEMM, 7, b + 270, 40);
            t.range("cpu_op", "nccl:all_to_all", b + 600, 20).kernel(SEND_RECV, 7, b + 610, 30);
            t.range("cpu_op", "nccl:send", b + 700, 20).kernel(SEND_RECV, 7, b + 710, 10);
            t.range("cpu_op", "aten::mm", b + 800, 20).kernel(GEMM, 7, b + 810, 50);
        }
        return t;
    }

    /** SendRecv under nccl:all_to_all is all-to-all (dispatch + combine, 60 µs per step); under nccl:send send/recv. */
    @Test
    void sendRecvUnderAllToAllIsAllToAll() throws Exception {
        JsonNode r = report(expertParallel(Marks.NONE), "ep", false);
        JsonNode comm = categories(r.at("/phases/unknown")).get("comm_other");
        assertEquals(0.060, sub(comm, "all_to_all").get("ms_per_step").asDouble(), 1e-9);
        assertEquals(2.0, sub(comm, "all_to_all").get("calls_per_step").asDouble());
        assertEquals(0.010, sub(comm, "send_recv").get("ms_per_step").asDouble(), 1e-9, "the pipeline send stays send/recv");
    }

    /**
     * Without context the experts are dense GEMMs (80 + 50 µs) and the top-k is a sort, and the report warns that the
     * MoE part could not be told apart, with the all-to-all as its evidence.
     */
    @Test
    void withoutContextTheMoePartIsAWarning() throws Exception {
        Path db = tmp.resolve("none.duckdb");
        JsonNode r = report(expertParallel(Marks.NONE), "none", false, db);
        Map<String, JsonNode> cats = categories(r.at("/phases/unknown"));
        assertNull(cats.get("moe_gemm"));
        assertNull(cats.get("routing"));
        assertEquals(0.130, cats.get("gemm").get("ms_per_step").asDouble(), 1e-9);
        JsonNode w = ReportJson.warning(r, "moe_not_told_apart");
        assertTrue(w.get("message").asText().contains("4 all-to-all launch(es), 0.12 ms"), w.toString());
        try (Connection c = DuckDb.connect(db, new java.util.Properties())) {
            List<String> rows = RuleEvidence.rows(c, w.get("evidence").asText());
            assertEquals(List.of("moe_time|NULL|0|0", "all_to_all|" + SEND_RECV + "|120000|4"), rows);
        }
    }

    /**
     * With annotations, or with module ranges (kept by a plain ingest), the experts' GEMMs are MoE GEMMs (80 µs per
     * step), the top-k is routing (5), the dense GEMM outside stays a GEMM (50), and no warning.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ANNOTATIONS", "MODULES"})
    void annotationsOrModulesTellTheMoePartApart(String how) throws Exception {
        Marks marks = Marks.valueOf(how);
        Path db = tmp.resolve(how + ".duckdb");
        JsonNode r = report(expertParallel(marks), how, false, db);
        if (marks == Marks.MODULES) {
            try (Connection c = DuckDb.connect(db, new java.util.Properties())) {
                // Of the six python_function events (three per step), the four module ranges are kept.
                assertEquals(List.of("nn.Module: FusedMoE_0|2", "nn.Module: Router_0|2"), RuleEvidence.rows(c,
                        "SELECT n.name, count(*) FROM cpu_ops o JOIN names n USING (file_id, name_id)"
                                + " WHERE o.kind = 'python_function' GROUP BY n.name ORDER BY n.name"));
            }
        }
        Map<String, JsonNode> cats = categories(r.at("/phases/unknown"));
        assertEquals(0.080, cats.get("moe_gemm").get("ms_per_step").asDouble(), 1e-9);
        assertEquals("torch_experts", cats.get("moe_gemm").at("/subcategories/0/id").asText());
        assertEquals(0.005, cats.get("routing").get("ms_per_step").asDouble(), 1e-9);
        assertEquals("topk", cats.get("routing").at("/subcategories/0/id").asText());
        assertEquals(0.050, cats.get("gemm").get("ms_per_step").asDouble(), 1e-9);
        assertEquals(0.060, sub(cats.get("comm_other"), "all_to_all").get("ms_per_step").asDouble(), 1e-9);
        assertFalse(ReportJson.warningCodes(r).contains("moe_not_told_apart"), ReportJson.warningCodes(r).toString());
        // By launch context: the three GEMMs' innermost op is aten::mm (40 + 40 + 50 µs, 3 calls); the experts' layer
        // 80 µs, 2 calls; classified by context: MoE GEMMs 80 + routing 5 + all-to-all 60 = 145 µs, 5 calls.
        JsonNode contexts = r.at("/phases/unknown/launch_contexts");
        assertEquals(0.145, contexts.get("context_classified_ms_per_step").asDouble(), 1e-9);
        assertEquals(5.0, contexts.get("context_classified_calls_per_step").asDouble());
        JsonNode mm = row(contexts.get("by_op"), "aten::mm");
        assertEquals(0.130, mm.get("ms_per_step").asDouble(), 1e-9);
        assertEquals(3.0, mm.get("calls_per_step").asDouble());
        assertEquals(GEMM, mm.at("/kernels/0/name").asText());
        JsonNode layer = row(contexts.get(marks == Marks.MODULES ? "by_module" : "by_annotation"),
                marks == Marks.MODULES ? "nn.Module: FusedMoE_0" : "moe_experts");
        assertEquals(0.080, layer.get("ms_per_step").asDouble(), 1e-9);
        assertEquals(2.0, layer.get("calls_per_step").asDouble());
        assertEquals(0, contexts.get(marks == Marks.MODULES ? "by_annotation" : "by_module").size(),
                "the step annotations are no context; no modules without python functions");
    }

    private static JsonNode row(JsonNode rows, String name) {
        for (JsonNode r : rows) {
            if (r.get("name").asText().equals(name)) {
                return r;
            }
        }
        throw new AssertionError("no row " + name + " in " + rows);
    }

    /**
     * A reduce-overhead-like step (300 µs): CUDA graph trees' input copy (aten::_foreach_copy_, a multi_tensor_apply
     * Copy kernel of 150 µs), then one graph replay of three 20 µs kernels. The copy is memcpy / graph_input_copy,
     * the largest category, and graph_input_copies fires: 150 of the step's 210 µs of GPU time (71.4%, more than the
     * GEMMs' 40), 50% of its 300 µs step time, with its evidence.
     */
    @Test
    void graphInputCopiesAreNamedWithTheirOp() throws Exception {
        KinetoTrace t = new KinetoTrace();
        for (int n = 1; n <= 2; n++) {
            double b = (n - 1) * 300;
            t.step(n, b, 300);
            t.range("cpu_op", "aten::_foreach_copy_", b + 10, 20).kernel(COPY, 7, b + 20, 150);
            t.graph(b + 40, 7, b + 180, 20, GEMM, GEMM, "triton_poi_fused_add_0");
        }
        Path db = tmp.resolve("ro.duckdb");
        JsonNode r = report(t, "reduce-overhead", false, db);
        JsonNode phase = r.at("/phases/unknown");
        assertEquals("memcpy", phase.at("/categories/0/id").asText(), "the copies are the largest category");
        assertEquals(0.150, phase.at("/categories/0/ms_per_step").asDouble(), 1e-9);
        assertEquals("graph_input_copy", phase.at("/categories/0/subcategories/0/id").asText());
        JsonNode w = ReportJson.warning(r, "graph_input_copies");
        String m = w.get("message").asText();
        assertTrue(m.contains("71.4% of the GPU time of the 2 step(s) that replay CUDA graphs, its largest part")
                && m.contains("50.0% of their step time") && m.contains("aten::_foreach_copy_")
                && m.contains("mark_static_address"), m);
        assertEquals(10, w.at("/thresholds/min_share_pct").asDouble());
        try (Connection c = DuckDb.connect(db, new java.util.Properties())) {
            assertEquals(List.of("unknown|aten::_foreach_copy_|300000|2|420000|80000|2|600000"),
                    RuleEvidence.rows(c, w.get("evidence").asText()));
        }
    }

    /** The same copies in an eager step (no graph replay) are no graph's inputs: no finding. */
    @Test
    void copiesWithoutGraphReplaysAreNoFinding() throws Exception {
        KinetoTrace t = new KinetoTrace();
        for (int n = 1; n <= 2; n++) {
            double b = (n - 1) * 300;
            t.step(n, b, 300);
            t.range("cpu_op", "aten::_foreach_copy_", b + 10, 20).kernel(COPY, 7, b + 20, 150);
            t.range("cpu_op", "aten::mm", b + 175, 20).kernel(GEMM, 7, b + 185, 60);
        }
        assertFalse(ReportJson.warningCodes(report(t, "eager-copies", false)).contains("graph_input_copies"));
    }

    /** Neither finding on the two sample captures (CUDA graphs and eager): their MoE GEMMs are MoE GEMMs by name. */
    @ParameterizedTest
    @ValueSource(strings = {"h200-tp2-moe-decode/graph-nccl-ll", "h200-tp2-moe-decode/graph-nccl-simple"})
    void noFindingOnTheSamples(String capture) throws Exception {
        Path dir = TestData.sampleTraces().resolve(capture);
        TestData.sharedOrSkip();
        JsonNode r = run(dir, tmp.resolve("s.duckdb"), false);
        List<String> codes = ReportJson.warningCodes(r);
        assertFalse(codes.contains("moe_not_told_apart"), codes.toString());
        assertFalse(codes.contains("graph_input_copies"), codes.toString());
    }

    // ---- helpers -------------------------------------------------------------------------------------

    private JsonNode report(KinetoTrace t, String name, boolean pythonFunctions) throws Exception {
        return report(t, name, pythonFunctions, tmp.resolve(name + ".duckdb"));
    }

    private JsonNode report(KinetoTrace t, String name, boolean pythonFunctions, Path db) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        t.write(dir);
        return run(dir, db, pythonFunctions);
    }

    private JsonNode run(Path capture, Path db, boolean pythonFunctions) throws Exception {
        if (pythonFunctions) {
            assertEquals(0, Main.run("ingest", capture.toString(), "--db", db.toString(), "--keep-python-functions",
                    "--quiet"));
        }
        Path out = tmp.resolve("out-" + capture.getFileName());
        assertEquals(0, Main.run("report", capture.toString(), "--db", db.toString(), "--out", out.toString(),
                "--format", "json", "--quiet"));
        return JSON.readTree(out.resolve("report.json").toFile());
    }
}
