package dev.steptrace.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code steptrace taxonomy}: the rule table, --explain, and one-line errors for bad rule files. */
class TaxonomyCommandTest {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

    private static synchronized Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = Main.run(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test
    void listsTheRulesInOrder() {
        Run r = run("taxonomy");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        int rules = Taxonomy.builtIn().rules().size();
        assertTrue(lines[0].startsWith(rules + " rules, tried in order"), lines[0]);
        assertTrue(lines[0].contains(Taxonomy.builtIn().digest()), "shows the digest");
        assertTrue(lines[1].matches("\\s*#\\s+id\\s+category\\s+subcategory\\s+kinds\\s+context\\s+pattern"), lines[1]);
        assertEquals(rules + 2, lines.length);
        assertTrue(lines[2].matches("\\s+1\\s+memcpy\\.memcpy\\s+memcpy\\s+memcpy\\s+memcpy\\s+-\\s+\\.\\*"), lines[2]);
        assertTrue(lines[lines.length - 1].matches("\\s*" + rules + "\\s+other\\.unclassified\\s+other\\s+unknown\\s+all\\s+-\\s+\\(any name\\)"),
                lines[lines.length - 1]);
        assertTrue(r.out().contains("comm.custom_allreduce.vllm") && r.out().contains("cross_device_reduce_"));
        assertTrue(r.out().lines().anyMatch(l -> l.matches("\\s*\\d+\\s+routing\\.topk\\.torch\\s+routing\\s+topk\\s+kernel\\s+moe_block\\s+.*")),
                "context rules say so");
    }

    @Test
    void explainsAContextRule() {
        Run r = run("taxonomy", "--explain", "void (anonymous namespace)::softmax_warp_forward<float, float, float, 6, false,"
                + " false>(float*, float const*, int, int, int, bool const*, int, bool)");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("category:    other / softmax"), r.out());
        assertTrue(r.out().contains("in an MoE block: rule ") && r.out().contains(" routing.gating.torch_softmax: routing / gating"),
                r.out());
        assertTrue(r.out().contains("matches, but only decides inside an MoE block (routing/gating there)"), r.out());
    }

    @Test
    void explainsATrapName() {
        Run r = run("taxonomy", "--explain", "triton_red_fused_moe_forward_shared_rms_norm_0");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("matched:     rule ") && r.out().contains(" other.norm.inductor"), r.out());
        assertTrue(r.out().contains("category:    other / norm  (Everything else)"), r.out());
        assertTrue(r.out().contains("source:      docs/reference/kernel-names.md"), r.out());
        assertTrue(r.out().contains("memcpy.memcpy") && r.out().contains("applies to memcpy, not kernel"), r.out());
        assertTrue(r.out().contains("earlier rules that did not match (12):"), r.out()
                + ": the two memcpy/memset rules and the ten rules of section 0b, by the launching op");
    }

    /** --op and --within give the launch's context: the context rule decides, and the output says by what. */
    @Test
    void explainsByTheLaunchContext() {
        String sendRecv = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
        Run alone = run("taxonomy", "--explain", sendRecv);
        assertEquals(0, alone.code(), alone.err());
        assertTrue(alone.out().contains("category:    comm_other / send_recv"), alone.out());
        assertTrue(alone.out().contains("by context:  rule ") && alone.out().contains("comm_other.all_to_all.by_op"), alone.out());
        Run r = run("taxonomy", "--explain", sendRecv, "--op", "c10d::alltoall_base_", "--op", "nccl:all_to_all");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("context:     op 'c10d::alltoall_base_', op 'nccl:all_to_all'"), r.out());
        assertTrue(r.out().contains("category:    comm_other / all_to_all"), r.out());
        assertTrue(r.out().contains("comm_other.all_to_all.by_op (by context: under an op matching"), r.out());
        Run gemm = run("taxonomy", "--explain", "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", "--op", "aten::mm",
                "--within", "nn.Module: FusedMoE_0");
        assertTrue(gemm.out().contains("category:    moe_gemm / torch_experts"), gemm.out());
        Run usage = run("taxonomy", "--op", "aten::mm");
        assertEquals(2, usage.code(), "--op without --explain is a usage error");
    }

    @Test
    void explainsAMemcpyByKind() {
        Run r = run("taxonomy", "--kind", "memcpy", "--explain", "Memcpy HtoD (Pageable -> Device)");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("matched:     rule 1 memcpy.memcpy"), r.out());
        assertTrue(r.out().contains("earlier rules: none"), r.out());
    }

    @Test
    void userRulesComeFirstInTheListAndTheExplanation() throws IOException {
        Path rules = dir.resolve("site.yaml");
        Files.writeString(rules, "rules:\n  - id: site.rccl\n    match: 'ncclDevKernel_Generic'\n"
                + "    category: allreduce\n    subcategory: rccl\n");
        Run list = run("taxonomy", "--taxonomy", rules.toString());
        assertEquals(0, list.code(), list.err());
        assertTrue(list.out().contains("(1 from " + rules + ", then " + Taxonomy.builtIn().rules().size() + " built-in)"),
                list.out());
        assertTrue(list.out().split("\n")[2].matches("\\s+1\\s+site\\.rccl\\s+allreduce\\s+rccl\\s+kernel\\s+-\\s+ncclDevKernel_Generic"));

        Run explain = run("taxonomy", "--taxonomy", rules.toString(), "--explain", "ncclDevKernel_Generic(ncclDevComm*, channelMasks, ncclWork*)");
        assertEquals(0, explain.code(), explain.err());
        assertTrue(explain.out().contains("matched:     rule 1 site.rccl"), explain.out());
        assertTrue(explain.out().contains("from:        " + rules), explain.out());
    }

    @Test
    void aMissingOrMalformedFileIsOneLineAndExitOne() throws IOException {
        Path missing = dir.resolve("missing.yaml");
        Run r = run("taxonomy", "--taxonomy", missing.toString());
        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("steptrace: taxonomy file " + missing + ": no such file"), r.err());

        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "rules:\n  - {id: site.x, match: 'a', category: network, subcategory: y}\n");
        r = run("taxonomy", "--taxonomy", bad.toString(), "--explain", "abc");
        assertEquals(1, r.code());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains(bad.toString()) && r.err().contains("rule 'site.x'")
                && r.err().contains("field 'category'"), r.err());
        assertTrue(!r.err().contains("Exception"), "no stack trace: " + r.err());
    }

    @Test
    void anUnknownKindIsAUsageError() {
        Run r = run("taxonomy", "--kind", "sync", "--explain", "x");
        assertEquals(2, r.code());
    }
}
