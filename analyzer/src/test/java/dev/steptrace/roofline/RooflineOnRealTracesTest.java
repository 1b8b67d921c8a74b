package dev.steptrace.roofline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.steptrace.api.Capture;
import dev.steptrace.api.Steptrace;
import dev.steptrace.cli.Main;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.StoreDb;
import dev.steptrace.testsupport.RuleEvidence;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/**
 * The roofline on the real H200 captures, checked against what the traces and the model file say,
 * worked out here without the code under test: GEMM FLOPs from each op's own Input Dims, and the MoE
 * floor from the model file's numbers and the H200's datasheet bandwidth.
 */
class RooflineOnRealTracesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The H200's memory bandwidth, from its datasheet: 4.8 TB/s. */
    private static final double H200_HBM_BYTES_PER_S = 4.8e12;

    @TempDir
    Path tmp;

    /** A kernel's row of kernel_work. */
    private record KernelRow(long durNs, double flops, String family) {}

    /** A kernel of the trace: its launch's correlation, duration, name, and whether its step is the prefill. */
    private record Kernel(long correlation, long ns, String name, boolean prefill) {}

    /** An aten::mm / addmm op of the trace: 2·M·N·K from its dims, and its kernels in steps. */
    private record Gemm(String name, double flops, List<Kernel> kernels) {
        long ns() {
            return kernels.stream().mapToLong(Kernel::ns).sum();
        }
    }

    @Test
    void everyEagerMmKernelCarriesItsShapesFlops() throws Exception {
        Path dir = TestData.sampleTraces().resolve("h200-tp2-moe-eager/batch16-prefill256");
        Map<Integer, Map<Long, Gemm>> expected = new HashMap<>();
        List<Path> files = TestData.kinetoTraces(dir);
        for (int rank = 0; rank < files.size(); rank++) {
            expected.put(rank, gemms(files.get(rank)));
        }
        int ops = 0;
        int singleKernel = 0;
        try (Steptrace st = Steptrace.openTraces(dir, tmp.resolve("eager.duckdb")); Capture c = st.capture()) {
            Table rows = c.sql("""
                    SELECT rank, external_id, dur_ns, flops, family FROM kernel_work
                    WHERE %s AND op IN ('aten::mm', 'aten::addmm')
                    ORDER BY 1, 2, 3
                    """.formatted(c.where()));
            Map<String, List<KernelRow>> byOp = new HashMap<>();
            for (Row r : rows) { // Tablesaw's Row is a cursor: copy the values out
                byOp.computeIfAbsent(r.getInt("rank") + "/" + r.getLong("external_id"), k -> new ArrayList<>())
                        .add(new KernelRow(r.getLong("dur_ns"), r.getDouble("flops"), r.getString("family")));
            }
            for (Map.Entry<Integer, Map<Long, Gemm>> rank : expected.entrySet()) {
                for (Map.Entry<Long, Gemm> op : rank.getValue().entrySet()) {
                    Gemm g = op.getValue();
                    List<KernelRow> kernels = byOp.get(rank.getKey() + "/" + op.getKey());
                    assertNotNull(kernels, "rank " + rank.getKey() + " " + g.name() + " #" + op.getKey() + " has its kernels' work");
                    assertEquals(g.kernels().size(), kernels.size(), "every kernel of the op");
                    long opNs = g.ns();
                    double sum = 0;
                    for (KernelRow k : kernels) {
                        assertEquals("gemm", k.family());
                        double flops = k.flops();
                        sum += flops;
                        // Achieved TFLOP/s of each kernel = FLOPs / duration: the op's rate, shared by time.
                        assertEquals(g.flops() / opNs, flops / k.durNs(), g.flops() / opNs * 1e-12);
                    }
                    assertEquals(g.flops(), sum, g.flops() * 1e-12, "2·M·N·K of " + g.name());
                    if (kernels.size() == 1) {
                        assertEquals(g.flops(), kernels.get(0).flops(), g.flops() * 1e-12);
                        singleKernel++;
                    }
                    ops++;
                }
            }
            assertEquals(ops, byOp.size(), "no GEMM work the trace does not show");

            // The report's top GEMM kernels: achieved TFLOP/s = their FLOPs (each op's 2·M·N·K shared by
            // time) / their time, over both ranks' steps of the phase.
            int checked = 0;
            for (String phase : List.of("prefill", "decode")) {
                Map<String, double[]> byName = new HashMap<>(); // flops, ns, calls
                for (Map<Long, Gemm> rank : expected.values()) {
                    for (Gemm g : rank.values()) {
                        for (Kernel k : g.kernels()) {
                            if (k.prefill() == phase.equals("prefill")) {
                                double[] v = byName.computeIfAbsent(k.name(), n -> new double[3]);
                                v[0] += g.flops() * k.ns() / g.ns();
                                v[1] += k.ns();
                                v[2]++;
                            }
                        }
                    }
                }
                var p = c.report().phases().get(phase);
                for (var top : p.topKernels()) {
                    double[] v = byName.get(top.name());
                    // Only kernels no other op launches: all their calls are the mm ops' ones.
                    if (v != null && Math.abs(v[2] - top.callsPerStep() * p.steps() * files.size()) < 1e-6) {
                        assertEquals(v[0] / v[1] / 1e3, top.roofline().achievedTflops(), v[0] / v[1] / 1e3 * 1e-9, top.name());
                        checked++;
                    }
                }
            }
            assertTrue(checked >= 5, checked + " top GEMM kernels checked");
        }
        assertTrue(ops > 3000 && singleKernel > 1000, ops + " GEMM ops, " + singleKernel + " with one kernel");
    }

    /** Every aten::mm / addmm op with kernels in a ProfilerStep, by external id, read from the JSON. */
    private static Map<Long, Gemm> gemms(Path trace) throws Exception {
        Map<Long, String[]> ops = new HashMap<>(); // external id -> name, flops
        Map<Long, List<Kernel>> kernels = new HashMap<>(); // external id -> its kernels
        Map<Long, BigDecimal> launches = new HashMap<>();
        List<BigDecimal[]> steps = new ArrayList<>();
        List<BigDecimal> prefills = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace));
             JsonParser p = JSON.getFactory().createParser(in)) {
            while (p.nextToken() != null) {
                if (p.currentToken() != JsonToken.FIELD_NAME || !"traceEvents".equals(p.currentName())) {
                    continue;
                }
                p.nextToken();
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    JsonNode e = JSON.readTree(p);
                    String cat = e.path("cat").asText();
                    JsonNode args = e.path("args");
                    String name = e.path("name").asText();
                    if (cat.equals("cpu_op") && (name.equals("aten::mm") || name.equals("aten::addmm"))) {
                        JsonNode dims = args.get("Input Dims");
                        JsonNode a = dims.get(name.equals("aten::mm") ? 0 : 1);
                        JsonNode b = dims.get(name.equals("aten::mm") ? 1 : 2);
                        double flops = 2.0 * a.get(0).asLong() * b.get(1).asLong() * a.get(1).asLong();
                        ops.put(args.get("External id").asLong(), new String[] {name, Double.toString(flops)});
                    } else if (cat.equals("kernel") && args.has("External id")) {
                        kernels.computeIfAbsent(args.get("External id").asLong(), k -> new ArrayList<>()).add(new Kernel(
                                args.get("correlation").asLong(),
                                new BigDecimal(e.get("dur").asText()).movePointRight(3).longValueExact(), name, false));
                    } else if ((cat.equals("cuda_runtime") || cat.equals("cuda_driver")) && args.has("correlation")) {
                        launches.put(args.get("correlation").asLong(), new BigDecimal(e.get("ts").asText()));
                    } else if (cat.equals("user_annotation") && name.startsWith("ProfilerStep#")) {
                        BigDecimal ts = new BigDecimal(e.get("ts").asText());
                        steps.add(new BigDecimal[] {ts, ts.add(new BigDecimal(e.get("dur").asText()))});
                    } else if (cat.equals("user_annotation") && name.equals("prefill")) {
                        prefills.add(new BigDecimal(e.get("ts").asText()));
                    }
                }
            }
        }
        Map<Long, Gemm> out = new HashMap<>();
        ops.forEach((id, op) -> {
            List<Kernel> inSteps = new ArrayList<>();
            for (Kernel k : kernels.getOrDefault(id, List.of())) {
                BigDecimal launch = launches.get(k.correlation());
                BigDecimal[] step = launch == null ? null : steps.stream()
                        .filter(s -> launch.compareTo(s[0]) >= 0 && launch.compareTo(s[1]) < 0).findFirst().orElse(null);
                if (step != null) {
                    boolean prefill = prefills.stream().anyMatch(t -> t.compareTo(step[0]) >= 0 && t.compareTo(step[1]) < 0);
                    inSteps.add(new Kernel(k.correlation(), k.ns(), k.name(), prefill));
                }
            }
            if (!inSteps.isEmpty()) {
                out.put(id, new Gemm(op[0], Double.parseDouble(op[1]), inSteps));
            }
        });
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"graph-nccl-ll", "graph-nccl-simple"})
    void theMoeFloorIsTheExpertBytesOfABatchOneStepOverTheH200sBandwidth(String capture) throws Exception {
        Path model = TestData.repoRoot().resolve("models/kimi-like-moe-slice-tp2.yaml");
        JsonNode m = new ObjectMapper(new YAMLFactory()).readTree(model.toFile());
        JsonNode moe = m.get("moe");
        // Batch 1, top-k: k experts per MoE layer. Each expert on this GPU: gate, up and down projections of
        // hidden x intermediate/tp weights at weight_bits, and a scale_bits scale per group_size weights.
        assertEquals(1, m.at("/workload/batch").asInt());
        double weights = 3.0 * m.get("hidden_size").asLong() * moe.get("intermediate_size").asLong()
                / m.at("/parallel/tp").asLong();
        double perExpert = weights * moe.get("weight_bits").asDouble() / 8
                + weights / moe.get("group_size").asLong() * moe.get("scale_bits").asDouble() / 8;
        double bytes = moe.get("layers").asLong() * moe.get("top_k").asLong() * perExpert;
        double floorMs = bytes / H200_HBM_BYTES_PER_S * 1e3;
        assertEquals(1.259, floorMs, 0.001, "61 layers x 8 experts x 12.39 MB at 4.8 TB/s");

        Path out = tmp.resolve("out");
        int rc = Main.run("report", TestData.sampleTraces().resolve("h200-tp2-moe-decode").resolve(capture).toString(),
                "--db", tmp.resolve("g.duckdb").toString(), "--out", out.toString(), "--model", model.toString(), "-q");
        assertEquals(0, rc);
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonSchemas.assertValid("report.schema.json", report);
        JsonNode decode = report.at("/phases/decode");
        JsonNode moeGemm = category(decode, "moe_gemm");
        assertEquals(floorMs, moeGemm.get("floor_ms_per_step").asDouble(), floorMs * 1e-9);
        assertEquals(bytes, moeGemm.get("bytes_per_step").asDouble(), bytes * 1e-9);
        assertEquals("model", moeGemm.get("work_source").asText(), "a CUDA-graph step has no shapes: the model's work");
        assertEquals("memory", moeGemm.get("bound").asText());

        String md = Files.readString(out.resolve("report.md"));
        String html = Files.readString(out.resolve("report.html"));
        int withFloor = 0;
        for (JsonNode c : decode.get("categories")) {
            if (c.get("floor_ms_per_step").isNull()) {
                continue;
            }
            withFloor++;
            double ratio = c.get("ms_per_step").asDouble() / c.get("floor_ms_per_step").asDouble();
            assertEquals(ratio, c.get("measured_over_floor").asDouble(), ratio * 1e-9, c.get("id").asText());
            String shown = String.format(java.util.Locale.ROOT, "%.1f×", ratio);
            assertTrue(md.contains(shown), "report.md shows " + c.get("id") + " at " + shown);
            assertTrue(html.contains(shown), "report.html shows " + c.get("id") + " at " + shown);
        }
        assertEquals(5, withFloor, "MoE GEMMs, other GEMMs, attention, all-reduce and the logits all-gather");
        assertTrue(report.get("warnings").toString().indexOf("model_file_disagrees") < 0,
                "the graph capture records no shapes to disagree with");
    }

    @Test
    void eagerShapesCheckTheModelFile() throws Exception {
        Path out = tmp.resolve("out");
        int rc = Main.run("report", TestData.sampleTraces().resolve("h200-tp2-moe-eager").toString(),
                "--db", tmp.resolve("e.duckdb").toString(), "--out", out.toString(), "--format", "json",
                "--model", TestData.repoRoot().resolve("models/kimi-like-moe-slice-tp2.yaml").toString(), "-q");
        assertEquals(0, rc);
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        List<String> disagree = new ArrayList<>();
        report.get("warnings").forEach(w -> {
            if (w.get("code").asText().equals("model_file_disagrees")) {
                disagree.add(w.get("message").asText());
            }
        });
        // The eager capture decodes batch 16 (the model file describes batch 1); everything else agrees:
        // hidden 7168, 32 heads and 4 KV heads of 128 per GPU, top-8 of 64 experts, 61 layers.
        assertEquals(1, disagree.size(), disagree.toString());
        assertTrue(disagree.get(0).contains("batch 16 over 2048 keys"), disagree.get(0));
        try (StoreDb s = StoreDb.open(tmp.resolve("e.duckdb"))) {
            List<String> shapes = RuleEvidence.rows(s.connection(), "model_file_disagrees", 1, "default");
            assertTrue(shapes.stream().anyMatch(r -> r.startsWith("decode|")), "the decode ops' shapes: " + shapes);
        }
        JsonNode gemm = category(report.at("/phases/prefill"), "gemm");
        assertEquals("trace", gemm.get("work_source").asText());
        assertEquals(100, gemm.get("work_coverage_pct").asDouble(), 1e-9, "every dense GEMM kernel is an aten::mm's");
        assertTrue(gemm.get("floor_ms_per_step").isNull(), "floors describe decode steps only");
    }

    @Test
    void aDeviceWithoutPeaksGetsNoBoundAndAWarning() throws Exception {
        // HTA's AlexNet trace ran on an "NVIDIA A100-PG509-200": an A100 board whose memory the name does not say.
        Path trace = TestData.smallTraces().resolve("hta_alexnet_cuda_sync.json.gz");
        Path out = tmp.resolve("out");
        Path dir = tmp.resolve("alexnet");
        Files.createDirectories(dir);
        Files.copy(trace, dir.resolve(trace.getFileName()));
        assertEquals(0, Main.run("report", dir.toString(), "--db", tmp.resolve("a.duckdb").toString(), "--out",
                out.toString(), "--format", "json", "-q"));
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertTrue(report.get("warnings").toString().contains("unknown peak for NVIDIA A100-PG509-200"),
                report.get("warnings").toString());
        try (StoreDb s = StoreDb.open(tmp.resolve("a.duckdb"))) {
            assertEquals(List.of("1|0|NVIDIA A100-PG509-200"), RuleEvidence.rows(s.connection(), "unknown_device_peaks", 1,
                    "default"), "the rule's evidence: the file's rank and GPU");
        }
        for (JsonNode phase : report.get("phases")) {
            assertTrue(phase.at("/roofline/peaks").isNull(), "unknown peak: null, not a guess");
            for (JsonNode c : phase.get("categories")) {
                assertTrue(c.get("pct_of_bound").isNull() && c.get("bound").isNull(), c.toString());
            }
        }
        assertFalse(report.get("phases").isEmpty());
    }

    private static JsonNode category(JsonNode phase, String id) {
        for (JsonNode c : phase.get("categories")) {
            if (c.get("id").asText().equals(id)) {
                return c;
            }
        }
        throw new AssertionError("no category " + id + " in " + phase);
    }
}
