package dev.steptrace.analysis;

import static dev.steptrace.testsupport.ReportJson.categories;
import static dev.steptrace.testsupport.ReportJson.sub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.cli.Main;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.KinetoTrace;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Classes from context (docs/taxonomy.md): torch's softmax / top-k / sort kernels are MoE routing only
 * before an MoE GEMM, and a generic collective kernel takes the collective its launching CPU op names.
 */
class ContextClassesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ROUTER_GEMM = "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT";
    private static final String SOFTMAX = "void (anonymous namespace)::softmax_warp_forward<float, float, float, 6, false,"
            + " false>(float*, float const*, int, int, int, bool const*, int, bool)";
    private static final String TOPK = "void at::native::sbtopk::gatherTopK<float, unsigned int, 1, false>(at::cuda::detail"
            + "::TensorInfo<float const, unsigned int>, unsigned int, unsigned int, bool, unsigned int, unsigned int,"
            + " at::cuda::detail::TensorInfo<float, unsigned int>, unsigned int, at::cuda::detail::TensorInfo<long,"
            + " unsigned int>, unsigned int)";
    private static final String MOE_GEMM = "fused_moe_kernel_gptq_awq";
    private static final String GENERIC = "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)";

    @TempDir
    Path tmp;

    /**
     * A hand-made capture (durations in µs): step 1 runs router GEMM, softmax (3), top-k (5), MoE GEMM,
     * then a sampler softmax (7) with no GEMM after it; step 2 runs a softmax (11) on stream 7 whose next
     * GEMM on stream 7 is dense, while an MoE GEMM runs on stream 8. Only the 3 + 5 of step 1 are routing.
     */
    @Test
    void routingOnlyBeforeAnMoeGemmOfTheSameStreamAndStep() throws Exception {
        KinetoTrace t = routerThen(MOE_GEMM);
        t.kernel(SOFTMAX, 7, 200, 7);
        t.step(2, 1000, 1000);
        t.kernel(SOFTMAX, 7, 1010, 11);
        t.kernel(MOE_GEMM, 8, 1030, 30);
        t.kernel(ROUTER_GEMM, 7, 1050, 20);
        Map<String, JsonNode> cats = categories(report(t, "moe"));
        assertEquals(2 / 2.0, cats.get("routing").get("calls_per_step").asDouble(), "softmax and top-k of step 1");
        assertEquals((3 + 5) / 2.0 / 1000, cats.get("routing").get("ms_per_step").asDouble(), 1e-12);
        assertEquals((7 + 11) / 2.0 / 1000, sub(cats.get("other"), "softmax").get("ms_per_step").asDouble(), 1e-12,
                "the sampler softmax and the softmax before a dense GEMM stay softmaxes");
    }

    /** The same kernels with the MoE GEMMs replaced by dense GEMMs: a dense model has no MoE routing time. */
    @Test
    void aDenseCaptureHasNoRouting() throws Exception {
        Map<String, JsonNode> cats = categories(report(routerThen(ROUTER_GEMM), "dense"));
        assertNull(cats.get("routing"));
        assertEquals(3 / 1000.0, sub(cats.get("other"), "softmax").get("ms_per_step").asDouble(), 1e-12);
        assertEquals(5 / 1000.0, sub(cats.get("other"), "sort_scan").get("ms_per_step").asDouble(), 1e-12);
    }

    /**
     * Real dense traces that run small warp softmaxes (training traces: attention and classifier
     * softmaxes of at most 512 columns) report no MoE routing; there is no MoE GEMM in any of them.
     */
    @ParameterizedTest
    @ValueSource(strings = {"hta_a100_2rank_nccl_rank0.json.gz", "hta_ns_resolution_epoch.pt.trace.json.gz",
            "kineto_2021_resnet50_legacy_categories.pt.trace.json.gz", "tracelens_rocm_sglang_decode.json.gz",
            "tracelens_h100_qwen.json.gz"})
    void denseCompatTracesReportNoRouting(String file) throws Exception {
        Path trace = TestData.sharedOrSkip().resolve("compat-traces").resolve(file);
        Path dir = Files.createDirectories(tmp.resolve("c"));
        Files.copy(trace, dir.resolve(file));
        JsonNode report = run(dir);
        report.get("phases").forEach(p -> p.get("categories").forEach(c -> {
            assertFalse(c.get("id").asText().equals("routing"), file + ": MoE routing in a dense trace");
            assertFalse(c.get("id").asText().equals("moe_gemm"), file + " has no MoE GEMM");
        }));
    }

    /**
     * The eager H200 capture with its NCCL kernels renamed as RCCL prints every collective, and the
     * collective metadata taken off the kernels: each launch is typed from record_param_comms (its
     * External id), so the AllReduce and all-gather rows equal those of the capture as NCCL named them.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void genericCollectivesTypedFromTheLaunchingCpuOp(boolean keepKernelArgs) throws Exception {
        Path original = TestData.sampleTraces().resolve("h200-tp2-moe-eager").resolve("batch16-prefill256");
        Path rccl = renamedCopy(original, "rccl", keepKernelArgs);
        JsonNode nccl = run(original);
        JsonNode generic = run(rccl);
        for (String phase : List.of("prefill", "decode")) {
            Map<String, JsonNode> a = categories(nccl.at("/phases/" + phase));
            Map<String, JsonNode> b = categories(generic.at("/phases/" + phase));
            for (String id : List.of("allreduce", "comm_other")) {
                assertEquals(a.get(id).get("calls_per_step").asDouble(), b.get(id).get("calls_per_step").asDouble(),
                        phase + " " + id);
                assertEquals(a.get(id).get("ms_per_step").asDouble(), b.get(id).get("ms_per_step").asDouble(), 1e-9,
                        phase + " " + id);
            }
            assertEquals("all_gather", b.get("comm_other").at("/subcategories/0/id").asText());
            JsonNode top = generic.at("/phases/" + phase + "/top_kernels");
            boolean typed = false;
            for (JsonNode k : top) {
                if (k.get("name").asText().equals(GENERIC) && k.get("category").asText().equals("allreduce")) {
                    assertEquals(Taxonomy.GENERIC_ALLREDUCE_RULE, k.get("rule").asText(), "the provenance says how");
                    typed = true;
                }
            }
            assertTrue(typed, phase + ": the generic kernel is an all-reduce among the top kernels");
        }
        assertFalse(generic.get("warnings").toString().contains("untyped_generic_collectives"));
    }

    /** Under CUDA graphs no CPU op launches the collective: the launches stay generic, and a warning says so. */
    @Test
    void graphReplaysLeaveGenericCollectivesUntyped() throws Exception {
        Path rccl = renamedCopy(TestData.sampleTraces().resolve("h200-tp2-moe-decode").resolve("graph-nccl-ll"),
                "rccl-graph", false);
        JsonNode report = run(rccl);
        Map<String, JsonNode> cats = categories(report.at("/phases/decode"));
        assertNull(cats.get("allreduce"), "nothing says which collective a graph replay ran");
        assertEquals(123 + 1, cats.get("comm_other").get("calls_per_step").asDouble(), "123 all-reduces + 1 all-gather");
        assertTrue(report.get("warnings").toString().contains("untyped_generic_collectives"));
    }

    // ---- helpers -------------------------------------------------------------------------------------

    /** Step 1 (0 to 1000 µs) on stream 7: a router GEMM, a softmax (3 µs), a top-k (5 µs), then {@code next} (30 µs). */
    private static KinetoTrace routerThen(String next) {
        KinetoTrace t = new KinetoTrace();
        t.step(1, 0, 1000);
        t.kernel(ROUTER_GEMM, 7, 10, 20);
        t.kernel(SOFTMAX, 7, 40, 3);
        t.kernel(TOPK, 7, 50, 5);
        t.kernel(next, 7, 60, 30);
        return t;
    }

    /** Every trace of {@code capture}, rewritten by {@link #renameCollectives}, in a new directory {@code name}. */
    private Path renamedCopy(Path capture, String name, boolean keepKernelArgs) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(name));
        try (var files = Files.list(capture)) {
            for (Path f : files.sorted().toList()) {
                renameCollectives(f, dir.resolve(f.getFileName()), keepKernelArgs);
            }
        }
        return dir;
    }

    /** Rewrites a trace: NCCL kernel names become RCCL's generic name; optionally the kernels' comm args go. */
    private static void renameCollectives(Path in, Path out, boolean keepKernelArgs) throws IOException {
        JsonNode root;
        try (InputStream s = new GZIPInputStream(Files.newInputStream(in))) {
            root = JSON.readTree(s);
        }
        for (JsonNode e : root.get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText()) && e.path("name").asText().startsWith("ncclDevKernel_")) {
                ((ObjectNode) e).put("name", GENERIC);
                if (!keepKernelArgs && e.get("args") instanceof ObjectNode args) {
                    args.remove(List.of("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
                            "Process Group Name", "Process Group Description", "Process Group Ranks",
                            "In split size", "Out split size"));
                }
            }
        }
        try (OutputStream s = new GZIPOutputStream(Files.newOutputStream(out))) {
            JSON.writeValue(s, root);
        }
    }

    private JsonNode report(KinetoTrace t, String name) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        t.write(dir);
        return run(dir).at("/phases/unknown");
    }

    private JsonNode run(Path capture) throws Exception {
        Path out = tmp.resolve("out-" + capture.getFileName());
        int code = Main.run("report", capture.toString(), "--db", tmp.resolve("s.duckdb").toString(), "--out",
                out.toString(), "--format", "json", "--quiet");
        assertEquals(0, code);
        return JSON.readTree(out.resolve("report.json").toFile());
    }
}
