package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.testing.JsonSchemas;
import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.ProfilerStepOracle;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code steptrace diff} on the real H200 TP2 decode captures: NCCL protocol Simple (A) against LL
 * (B), everything else identical. The all-reduce time must drop significantly, by what a plain tree
 * parse of the traces says; the GEMMs (the same kernels on the same data) must not be significant;
 * a capture against itself must show no significant change at all.
 */
class DiffOnRealTracesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path tmp;

    private static Path simple;
    private static Path ll;
    private static JsonNode diff;

    @BeforeAll
    static void diffTheProtocols() throws Exception {
        Path dir = TestData.sampleTraces().resolve("h200-tp2-moe-decode");
        simple = dir.resolve("graph-nccl-simple");
        ll = dir.resolve("graph-nccl-ll");
        diff = diff(simple.toString(), ll.toString(), "nccl");
    }

    @Test
    void matchesTheSchema() throws Exception {
        JsonSchemas.assertValid("diff.schema.json", diff);
        assertEquals("steptrace.diff/1", diff.get("schema").asText());
        assertEquals("graph-nccl-simple", diff.at("/a/name").asText());
        assertEquals("graph-nccl-ll", diff.at("/b/name").asText());
        assertEquals(0, diff.get("warnings").size(), "same structure: " + diff.get("warnings"));
    }

    @Test
    void allReduceIsSignificantlyFasterByWhatTheTracesSay() throws Exception {
        JsonNode decode = diff.at("/phases/decode");
        JsonNode ar = category(decode, "allreduce");
        double expectedA = meanAllReduceMsPerStep(simple);
        double expectedB = meanAllReduceMsPerStep(ll);
        assertEquals(expectedA, ar.get("a_ms_per_step").asDouble(), 1e-6);
        assertEquals(expectedB, ar.get("b_ms_per_step").asDouble(), 1e-6);
        assertEquals(expectedB - expectedA, ar.get("delta_ms").asDouble(), 1e-6);
        assertTrue(ar.get("delta_ms").asDouble() < -2, "LL saves over 2 ms per step here: " + ar);
        assertTrue(ar.get("significant").asBoolean(), ar.toString());
        double lo = ar.at("/ci95_ms/0").asDouble();
        double hi = ar.at("/ci95_ms/1").asDouble();
        assertTrue(lo < ar.get("delta_ms").asDouble() && ar.get("delta_ms").asDouble() < hi && hi < 0, ar.toString());
        assertEquals("faster", decode.get("verdict").asText());
        assertTrue(decode.at("/kernel_ms_per_step/significant").asBoolean());
        assertTrue(decode.at("/span_ms_per_step/significant").asBoolean());

        JsonNode coll = decode.get("collectives").get(0);
        assertEquals("allreduce", coll.get("type").asText());
        assertTrue(coll.get("delta_mean_us").asDouble() < 0);
        assertTrue(coll.get("delta_busbw_gbps").isNull(), "graph replays carry no message sizes");
    }

    @Test
    void sameKernelsOnTheSameDataAreNotSignificant() {
        JsonNode decode = diff.at("/phases/decode");
        for (String id : List.of("moe_gemm", "gemm", "attention", "routing", "memcpy", "other")) {
            JsonNode c = category(decode, id);
            assertFalse(c.get("significant").asBoolean(), id + ": " + c);
            assertTrue(Math.abs(c.get("delta_pct").asDouble()) < 3, id + ": " + c);
        }
        // The NCCL kernels are the movers; GEMM kernels are matched by name, and none is significant.
        JsonNode top = decode.get("kernels").get(0);
        assertTrue(top.get("name").asText().startsWith("ncclDevKernel_AllReduce"), top.toString());
        for (JsonNode k : decode.get("kernels")) {
            if (k.get("category").asText().endsWith("gemm")) {
                assertFalse(k.get("significant").asBoolean(), k.toString());
                assertEquals("changed", k.get("change").asText());
                assertFalse(k.get("calls_changed").asBoolean(), k.toString());
            }
        }
    }

    @Test
    void sidesAreTheReportsNumbers() throws Exception {
        Path out = tmp.resolve("report-a");
        Cli.assertExit(0, Cli.run("report", simple.toString(), "--db", tmp.resolve("store.duckdb").toString(),
                "--out", out.toString(), "--format", "json", "--quiet"));
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonNode decode = diff.at("/phases/decode");
        assertEquals(report.at("/phases/decode/kernel_ms_per_step/mean").asDouble(),
                decode.at("/kernel_ms_per_step/a").asDouble(), 1e-9);
        assertEquals(report.at("/phases/decode/span_ms_per_step/mean").asDouble(),
                decode.at("/span_ms_per_step/a").asDouble(), 1e-9);
        for (JsonNode c : report.at("/phases/decode/categories")) {
            JsonNode d = category(decode, c.get("id").asText());
            assertEquals(c.get("ms_per_step").asDouble(), d.get("a_ms_per_step").asDouble(), 1e-9, c.get("id").asText());
            assertEquals(c.get("calls_per_step").asDouble(), d.get("a_calls_per_step").asDouble(), 1e-9);
        }
    }

    @Test
    void aCaptureAgainstItselfHasNoSignificantChange() throws Exception {
        JsonNode self = diff(simple.toString(), simple.toString(), "self");
        JsonSchemas.assertValid("diff.schema.json", self);
        JsonNode decode = self.at("/phases/decode");
        assertEquals("no_significant_change", decode.get("verdict").asText());
        assertEquals(0, decode.at("/kernel_ms_per_step/delta_ms").asDouble());
        assertFalse(decode.at("/kernel_ms_per_step/significant").asBoolean());
        assertFalse(decode.at("/span_ms_per_step/significant").asBoolean());
        assertTrue(decode.get("categories").size() >= 8);
        for (JsonNode c : decode.get("categories")) {
            assertFalse(c.get("significant").asBoolean(), c.toString());
            assertEquals(0, c.get("delta_ms").asDouble(), c.toString());
            for (JsonNode s : c.get("subcategories")) {
                assertFalse(s.get("significant").asBoolean(), s.toString());
            }
        }
        assertEquals(0, decode.get("kernels").size(), "no kernel moved: " + decode.get("kernels"));
        assertEquals(0, self.get("warnings").size());
    }

    @Test
    void sameSeedSameOutputAndCapturesByName() throws Exception {
        // The captures are in the store now: name them instead of giving their directories.
        JsonNode again = diff("graph-nccl-simple", "graph-nccl-ll", "by-name");
        assertEquals(diff, again, "seeded bootstrap: identical diff.json");
        JsonNode otherSeed = diff(simple.toString(), ll.toString(), "seed2", "--seed", "2");
        assertNotEquals(diff.at("/phases/decode/categories/0/ci95_ms"), otherSeed.at("/phases/decode/categories/0/ci95_ms"));
        assertEquals(diff.at("/phases/decode/categories/0/delta_ms"), otherSeed.at("/phases/decode/categories/0/delta_ms"));
        assertEquals(2, otherSeed.at("/method/seed").asLong());
    }

    @Test
    void unknownCaptureIsOneClearLine() {
        Cli.Result r = Cli.run("diff", simple.toString(), "no-such-capture", "--db", tmp.resolve("store.duckdb").toString(),
                "--out", tmp.resolve("x").toString(), "--quiet");
        Cli.assertExit(1, r);
        assertTrue(r.err().contains("B: no-such-capture is neither a trace directory nor a capture in the store"), r.err());
        Cli.Result parent = Cli.run("diff", simple.getParent().toString(), ll.toString(), "--db",
                tmp.resolve("store.duckdb").toString(), "--out", tmp.resolve("y").toString(), "--quiet");
        Cli.assertExit(1, parent);
        assertTrue(parent.err().contains("holds 2 captures"), parent.err());
    }

    /** A CI gate: LL is faster than Simple here (above), so Simple after LL is a regression, LL after Simple is not. */
    @Test
    void failOnGatesARegression() {
        Cli.Result regression = failOn(ll, simple, "slower");
        Cli.assertExit(3, regression);
        assertTrue(regression.err().contains("diff --fail-on slower: decode is slower (kernel time +"), regression.err());
        assertTrue(regression.out().contains("diff.json"), "the outputs are written first: " + regression.out());
        Cli.assertExit(0, failOn(simple, ll, "slower"));
        Cli.assertExit(3, failOn(simple, ll, "faster"));
        Cli.assertExit(3, failOn(simple, ll, "changed"));
        Cli.assertExit(3, failOn(ll, simple, "changed"));
        Cli.assertExit(0, failOn(ll, ll, "changed"));
        Cli.Result usage = failOn(ll, simple, "worse");
        assertEquals(2, usage.exit(), usage::describe);
        assertTrue(usage.err().contains("--fail-on") && usage.err().contains("slower, faster, changed"), usage.err());
    }

    private static Cli.Result failOn(Path a, Path b, String verdict) {
        return Cli.run("diff", a.toString(), b.toString(), "--db", tmp.resolve("store.duckdb").toString(), "--out",
                tmp.resolve("gate-" + verdict).toString(), "--format", "json", "--quiet", "--fail-on", verdict);
    }

    private static JsonNode diff(String a, String b, String name, String... extra) throws Exception {
        Path out = tmp.resolve("diff-" + name);
        List<String> args = new ArrayList<>(List.of("diff", a, b, "--db", tmp.resolve("store.duckdb").toString(),
                "--out", out.toString(), "--format", "json", "--quiet"));
        args.addAll(List.of(extra));
        Cli.Result r = Cli.run(args.toArray(new String[0]));
        Cli.assertExit(0, r);
        return JSON.readTree(out.resolve("diff.json").toFile());
    }

    private static JsonNode category(JsonNode phase, String id) {
        for (JsonNode c : phase.get("categories")) {
            if (c.get("id").asText().equals(id)) {
                return c;
            }
        }
        throw new AssertionError("no category " + id + " in " + phase.get("categories"));
    }

    /**
     * Independently of the store: per rank, the NCCL all-reduce kernel time launched inside each
     * ProfilerStep range (the step's cudaGraphLaunch shares its correlation id with the replayed
     * kernels), averaged over the rank's steps; then the mean over ranks.
     */
    private static double meanAllReduceMsPerStep(Path capture) throws Exception {
        List<Double> perRank = new ArrayList<>();
        try (var files = Files.list(capture)) {
            for (Path f : files.sorted().toList()) {
                List<Double> steps = ProfilerStepOracle.msPerStep(f, e -> e.path("cat").asText().equals("kernel")
                        && e.path("name").asText().startsWith("ncclDevKernel_AllReduce"));
                assertEquals(10, steps.size(), "ProfilerStep#2..#11 in " + f);
                perRank.add(steps.stream().mapToDouble(Double::doubleValue).average().orElseThrow());
            }
        }
        return perRank.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }
}
