package dev.steptrace.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every distinct kernel, memcpy and memset name of the real traces in {@code ../shared/sample-traces}
 * and {@code ../shared/compat-traces} (read with a plain Jackson tree parse, independent of the
 * ingest code) gets a rule other than the catch-all.
 */
class RealTraceNamesTest {
    /**
     * Names judged to be genuinely "other" with no rule of their own. Empty: every name of the real
     * traces has a family rule (generic ATen kernels match other.elementwise.aten / other.reduce.aten,
     * training-only kernels match conv, loss, optimizer, pooling...). Add a name here only with a
     * comment saying why no rule can describe it.
     */
    private static final Set<String> ALLOWED_UNCLASSIFIED = Set.of();

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    /** (name, kind) -> the files it occurs in. */
    private static Map<List<String>, Set<String>> names;

    @BeforeAll
    static void readTraces() throws IOException {
        Path shared = SharedTraces.dir().orElse(null);
        Assumptions.assumeTrue(shared != null,
                "SKIPPED: ../shared (sample-traces, compat-traces) is not beside the project root");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(shared.resolve("sample-traces"))) {
            s.filter(p -> p.toString().endsWith(".gz")).forEach(files::add);
        }
        try (Stream<Path> s = Files.list(shared.resolve("compat-traces"))) {
            s.filter(p -> p.toString().endsWith(".gz")).forEach(files::add);
        }
        Assumptions.assumeTrue(!files.isEmpty(), "SKIPPED: no .gz traces under " + shared);
        names = new TreeMap<>((a, b) -> a.get(0).equals(b.get(0)) ? a.get(1).compareTo(b.get(1))
                : a.get(0).compareTo(b.get(0)));
        for (Path f : files) {
            JsonNode root;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(f), 1 << 16)) {
                root = JSON.readTree(in);
            }
            JsonNode events = root.isArray() ? root : root.path("traceEvents");
            for (JsonNode e : events) {
                String kind = kindOf(e.path("cat").asText(""));
                if (kind != null && e.hasNonNull("name")) {
                    names.computeIfAbsent(List.of(e.get("name").asText(), kind), k -> new TreeSet<>())
                            .add(f.getFileName().toString());
                }
            }
        }
    }

    private static String kindOf(String cat) {
        switch (cat) {
            case "kernel":
            case "Kernel":
                return "kernel";
            case "gpu_memcpy":
            case "Memcpy":
                return "memcpy";
            case "gpu_memset":
            case "Memset":
                return "memset";
            default:
                return null;
        }
    }

    @Test
    void everyRealNameHasARuleOtherThanTheCatchAll() {
        Taxonomy t = Taxonomy.builtIn();
        Map<String, Integer> perCategory = new TreeMap<>();
        List<String> unclassified = new ArrayList<>();
        for (List<String> nk : names.keySet()) {
            Classification c = t.classify(nk.get(0), nk.get(1));
            perCategory.merge(c.categoryId(), 1, Integer::sum);
            if (c.ruleId().equals(Taxonomy.CATCH_ALL_ID) && !ALLOWED_UNCLASSIFIED.contains(nk.get(0))) {
                unclassified.add(nk.get(1) + " " + nk.get(0) + " (in " + names.get(nk) + ")");
            }
        }
        System.out.println("distinct (name, kind) in the real traces: " + names.size() + ", per category: " + perCategory);
        assertTrue(names.size() > 400, "the traces hold hundreds of distinct names, read " + names.size());
        assertEquals(List.of(), unclassified, "names that fall to " + Taxonomy.CATCH_ALL_ID);
    }

    @Test
    void thePreCheckNeverChangesAClassification() {
        Taxonomy t = Taxonomy.builtIn();
        for (List<String> nk : names.keySet()) {
            assertEquals(t.explain(nk.get(0), nk.get(1)).classification(), t.classify(nk.get(0), nk.get(1)),
                    nk::toString);
        }
    }

    @Test
    void theSampleTraceKernelsLandWhereTheCaptureScriptSays() {
        // tools/gpu-capture/capture_moe_decode.py: TP all-reduce, lm-head all-gather, Triton W4A16 MoE GEMV.
        Taxonomy t = Taxonomy.builtIn();
        int seen = 0;
        for (List<String> nk : names.keySet()) {
            if (!names.get(nk).stream().anyMatch(f -> f.startsWith("rank"))) {
                continue;
            }
            String n = nk.get(0);
            String cat = t.classify(n, nk.get(1)).categoryId();
            if (n.startsWith("ncclDevKernel_AllReduce")) {
                assertEquals("allreduce", cat, n);
                seen++;
            } else if (n.startsWith("ncclDevKernel_AllGather")) {
                assertEquals("comm_other", cat, n);
                seen++;
            } else if (n.equals("fused_moe_kernel_gptq_awq")) {
                assertEquals("moe_gemm", cat, n);
                seen++;
            } else if (n.startsWith("nvjet_")) {
                assertEquals("gemm", cat, n);
            } else if (n.startsWith("cudnn_generated_fort_native_sdpa")) {
                assertEquals("attention", cat, n);
                seen++;
            }
        }
        assertEquals(4, seen, "the all-reduce, all-gather, MoE GEMM and attention kernels of the samples");
    }
}
