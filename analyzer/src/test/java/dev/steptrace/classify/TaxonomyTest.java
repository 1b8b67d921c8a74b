package dev.steptrace.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaxonomyTest {
    private static final Taxonomy BUILT_IN = Taxonomy.builtIn();
    private static final String NCCL_AR = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    private String errorOf(String fileName, String text) throws IOException {
        Path p = write(fileName, text);
        TaxonomyException e = assertThrows(TaxonomyException.class, () -> BUILT_IN.withUserRules(p));
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        assertTrue(e.getMessage().contains(p.toString()), "names the file: " + e.getMessage());
        return e.getMessage();
    }

    // ---- the built-in list ----------------------------------------------------------------------

    @Test
    void builtInRulesAreWellFormed() {
        List<TaxonomyRule> rules = BUILT_IN.rules();
        assertTrue(rules.size() > 60, "rules: " + rules.size());
        TaxonomyRule last = rules.get(rules.size() - 1);
        assertEquals(Taxonomy.CATCH_ALL_ID, last.id());
        assertEquals(Category.OTHER, last.category());
        assertEquals("unknown", last.subcategory());
        Set<String> ids = new HashSet<>();
        for (TaxonomyRule r : rules) {
            assertTrue(ids.add(r.id()), "unique id " + r.id());
            assertNotNull(r.source(), r.id());
            assertFalse(r.source().isBlank(), r.id() + " says where its names come from");
            assertEquals(Taxonomy.BUILT_IN, r.origin());
        }
        for (Category c : Category.values()) {
            assertTrue(rules.stream().anyMatch(r -> r.category() == c), "a rule for " + c.id());
        }
        assertEquals(0, BUILT_IN.userRuleCount());
    }

    @Test
    void memcpyAndMemsetAreClassifiedByKind() {
        // Whatever the name says, a memcpy event is a memcpy, and a kernel is not.
        assertEquals(new Classification(Category.MEMCPY, "memcpy", "memcpy.memcpy"),
                BUILT_IN.classify("ncclDevKernel_AllReduce_oddly_named_copy", "memcpy"));
        assertEquals(new Classification(Category.MEMCPY, "memset", "memcpy.memset"),
                BUILT_IN.classify("Memset (Device)", "memset"));
        assertEquals(Category.ALLREDUCE, BUILT_IN.classify(NCCL_AR, null).category(), "null kind means kernel");
        assertThrows(IllegalArgumentException.class, () -> BUILT_IN.classify(NCCL_AR, "sync"));
    }

    @Test
    void unknownKernelFallsToTheCatchAll() {
        assertEquals(new Classification(Category.OTHER, "unknown", Taxonomy.CATCH_ALL_ID),
                BUILT_IN.classify("my_private_kernel_v3", "kernel"));
    }

    // ---- explain ----------------------------------------------------------------------------------

    @Test
    void explainSaysWhichRuleMatchedAndWhyEarlierOnesDidNot() {
        // Trap: the FA3 kernel is a cutlass::device_kernel, like dense and grouped GEMMs.
        String fa3 = "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
                + "flash::CollectiveMainloopFwdSm90<2, cute::tuple<int, int, int>, 128, 128> > > >(...)";
        Explanation e = BUILT_IN.explain(fa3, "kernel");
        assertEquals("attention.flash_attn", e.matched().id());
        assertEquals(Category.ATTENTION, e.classification().category());
        assertEquals("flash_attn", e.classification().subcategory());
        assertEquals(e.index() - 1, e.earlier().size(), "every earlier rule is accounted for");
        for (int i = 0; i < e.earlier().size(); i++) {
            Explanation.Miss m = e.earlier().get(i);
            assertEquals(i + 1, m.index());
            assertEquals(BUILT_IN.rules().get(i), m.rule());
        }
        // The memcpy rules come first and are skipped because of the kind, the rest because of the pattern.
        assertEquals(Explanation.Reason.OTHER_KIND, e.earlier().get(0).reason());
        assertTrue(e.earlier().stream().anyMatch(m -> m.rule().id().equals("moe_gemm.cutlass.grouped")
                && m.reason() == Explanation.Reason.NO_MATCH), "the grouped-GEMM rule was tried and did not match");
        // The dense CUTLASS rule would have matched, but comes later.
        TaxonomyRule cutlass = BUILT_IN.rules().stream().filter(r -> r.id().equals("gemm.cutlass")).findFirst().orElseThrow();
        assertTrue(cutlass.matchesName(fa3));
        assertTrue(BUILT_IN.rules().indexOf(cutlass) + 1 > e.index());
    }

    @Test
    void explainOfAMemcpyNamesTheKindRule() {
        Explanation e = BUILT_IN.explain("Memcpy DtoH (Device -> Pinned)", "memcpy");
        assertEquals("memcpy.memcpy", e.matched().id());
        assertEquals(1, e.index());
        assertTrue(e.earlier().isEmpty());
    }

    // ---- user rules -------------------------------------------------------------------------------

    @Test
    void userRulesArePrependedAndWin() throws IOException {
        Path file = write("mine.yaml", String.join("\n",
                "version: 1",
                "rules:",
                "  # on this ROCm box every generic RCCL kernel is the TP all-reduce",
                "  - id: site.rccl_generic_is_allreduce",
                "    match: 'ncclDevKernel_Generic'",
                "    category: allreduce",
                "    subcategory: rccl",
                "  - id: site.my_gemm",
                "    match: '^my_private_kernel'",
                "    kinds: [kernel]",
                "    category: gemm",
                "    subcategory: custom",
                "    source: 'our fork of vllm'",
                ""));
        Taxonomy t = BUILT_IN.withUserRules(file);
        assertEquals(BUILT_IN.rules().size() + 2, t.rules().size());
        assertEquals(2, t.userRuleCount());
        assertEquals("site.rccl_generic_is_allreduce", t.rules().get(0).id());
        assertEquals(file.toString(), t.rules().get(0).origin());
        assertTrue(t.rules().get(0).source().contains(file.toString()), "default source names the file");
        assertEquals("our fork of vllm", t.rules().get(1).source());

        String rccl = "ncclDevKernel_Generic(ncclDevComm*, channelMasks, ncclWork*)";
        assertEquals(Category.COMM_OTHER, BUILT_IN.classify(rccl, "kernel").category());
        assertEquals(new Classification(Category.ALLREDUCE, "rccl", "site.rccl_generic_is_allreduce"),
                t.classify(rccl, "kernel"));
        assertEquals(new Classification(Category.GEMM, "custom", "site.my_gemm"),
                t.classify("my_private_kernel_v3", "kernel"));
        // Names the user rules do not match are classified as before.
        assertEquals(BUILT_IN.classify(NCCL_AR, "kernel"), t.classify(NCCL_AR, "kernel"));
        assertEquals(1, t.explain(rccl, "kernel").index());
    }

    @Test
    void jsonRuleFilesWorkToo() throws IOException {
        Path file = write("mine.json", "{\"rules\": [{\"id\": \"site.x\", \"match\": \"^xk_\\\\w+\","
                + " \"category\": \"attention\", \"subcategory\": \"mine\"}]}");
        Taxonomy t = BUILT_IN.withUserRules(file);
        assertEquals(new Classification(Category.ATTENTION, "mine", "site.x"), t.classify("xk_attn", "kernel"));
    }

    @Test
    void aBareListOfRulesIsAccepted() throws IOException {
        Path file = write("list.yaml", "- {id: site.a, match: 'abc', category: other, subcategory: norm}\n");
        assertEquals("site.a", BUILT_IN.withUserRules(file).classify("xabcx", "kernel").ruleId());
    }

    @Test
    void missingFileIsOneClearLine() {
        Path p = dir.resolve("nope.yaml");
        TaxonomyException e = assertThrows(TaxonomyException.class, () -> BUILT_IN.withUserRules(p));
        assertEquals("taxonomy file " + p + ": no such file", e.getMessage());
    }

    @Test
    void malformedFilesAreOneClearLineNamingFileRuleAndField() throws IOException {
        String m = errorOf("syntax.yaml", "rules:\n  - id: a\n    match: 'x\n  - : :\n");
        // The quote opened on line 3 never closes: the stream ends on line 5 (four lines and a newline).
        assertTrue(m.contains(": line 5, column 1: not valid YAML: "), m);

        m = errorOf("syntax.json", "{\"rules\": [}");
        assertTrue(m.contains(": line 1, column ") && m.contains("not valid JSON: "), m);

        m = errorOf("category.yaml", "rules:\n  - {id: site.bad_cat, match: 'x', category: comms, subcategory: nccl}\n");
        assertTrue(m.contains("rule 'site.bad_cat'") && m.contains("field 'category'")
                && m.contains("unknown category 'comms'") && m.contains("allreduce, comm_other"), m);

        m = errorOf("regex.yaml", "rules:\n  - {id: site.bad_re, match: 'flash_(fwd', category: attention, subcategory: x}\n");
        assertTrue(m.contains("rule 'site.bad_re'") && m.contains("field 'match'") && m.contains("bad regex"), m);

        m = errorOf("dup.yaml", String.join("\n", "rules:",
                "  - {id: site.same, match: 'a', category: other, subcategory: x}",
                "  - {id: site.same, match: 'b', category: other, subcategory: y}", ""));
        assertTrue(m.contains("rule 'site.same'") && m.contains("duplicate id"), m);

        m = errorOf("dup_builtin.yaml", "rules:\n  - {id: comm.nccl.allreduce, match: 'a', category: other, subcategory: x}\n");
        assertTrue(m.contains("rule 'comm.nccl.allreduce'") && m.contains("duplicate id")
                && m.contains("built-in"), m);

        m = errorOf("missing.yaml", "rules:\n  - {id: site.m, match: 'a', category: other}\n");
        assertTrue(m.contains("rule 'site.m'") && m.contains("field 'subcategory' is missing"), m);

        m = errorOf("noid.yaml", "rules:\n  - {match: 'a', category: other, subcategory: x}\n");
        assertTrue(m.contains("rule #1") && m.contains("field 'id'"), m);

        m = errorOf("typo.yaml", "rules:\n  - {id: site.t, match: 'a', catgory: other, subcategory: x}\n");
        assertTrue(m.contains("rule 'site.t'") && m.contains("unknown field 'catgory'"), m);

        m = errorOf("kind.yaml", "rules:\n  - {id: site.k, match: 'a', kinds: [kernel, memcopy], category: other, subcategory: x}\n");
        assertTrue(m.contains("rule 'site.k'") && m.contains("field 'kinds'") && m.contains("memcopy"), m);

        m = errorOf("number.yaml", "rules:\n  - {id: site.n, match: 123, category: other, subcategory: x}\n");
        assertTrue(m.contains("rule 'site.n'") && m.contains("field 'match' must be a string"), m);

        m = errorOf("norules.yaml", "version: 1\nrulez: []\n");
        assertTrue(m.contains("unknown top-level field 'rulez'"), m);

        m = errorOf("empty.yaml", "");
        assertTrue(m.contains("is empty"), m);

        m = errorOf("version.yaml", "version: 2\nrules: []\n");
        assertTrue(m.contains("unsupported version 2"), m);

        m = errorOf("context.yaml", "rules:\n  - {id: site.c, match: 'a', category: routing, subcategory: x, context: moe}\n");
        assertTrue(m.contains("rule 'site.c'") && m.contains("field 'context'") && m.contains("moe_block"), m);
    }

    // ---- context rules ------------------------------------------------------------------------------

    @Test
    void aContextRuleDecidesOnlyInsideAnMoeBlock() throws IOException {
        Taxonomy t = BUILT_IN.withUserRules(write("ctx.yaml",
                "rules:\n  - {id: site.argmax_router, match: 'ArgMaxOps', category: routing, subcategory: topk, context: moe_block}\n"));
        String argmax = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>,"
                + " unsigned int, long, 4, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4, 4>)";
        assertEquals(BUILT_IN.classify(argmax, "kernel"), t.classify(argmax, "kernel"), "by name, as if the rule were not there");
        assertEquals("routing/topk/site.argmax_router",
                t.inMoeBlock(argmax, "kernel").map(c -> c.categoryId() + "/" + c.subcategory() + "/" + c.ruleId()).orElse(null));
        assertTrue(BUILT_IN.inMoeBlock(argmax, "kernel").isEmpty(), "no built-in context rule matches it");
        Explanation e = t.explain(argmax, "kernel");
        assertEquals("site.argmax_router", e.inMoeBlock().rule().id());
        assertEquals(Explanation.Reason.NEEDS_CONTEXT, e.earlier().get(0).reason());
        assertNotEquals(BUILT_IN.withUserRules(write("ctx2.yaml",
                "rules:\n  - {id: site.argmax_router, match: 'ArgMaxOps', category: routing, subcategory: topk}\n")).digest(),
                t.digest(), "the context is part of the digest");
    }

    // ---- digest -----------------------------------------------------------------------------------

    @Test
    void digestIsStableAndChangesWithTheRules() throws IOException {
        assertTrue(BUILT_IN.digest().matches("[0-9a-f]{64}"), BUILT_IN.digest());
        String rule = "rules:\n  - {id: site.a, match: 'abc', category: other, subcategory: norm}\n";
        Taxonomy a1 = BUILT_IN.withUserRules(write("a1.yaml", rule));
        Taxonomy a2 = BUILT_IN.withUserRules(write("a2.yaml", "# same rule, other file and comments\n" + rule));
        assertEquals(a1.digest(), a2.digest(), "same effective rules, same digest");
        assertNotEquals(BUILT_IN.digest(), a1.digest(), "a prepended rule changes the digest");

        Taxonomy otherPattern = BUILT_IN.withUserRules(write("b.yaml", rule.replace("'abc'", "'abd'")));
        Taxonomy otherCategory = BUILT_IN.withUserRules(write("c.yaml", rule.replace("category: other", "category: gemm")));
        Taxonomy otherSub = BUILT_IN.withUserRules(write("d.yaml", rule.replace("subcategory: norm", "subcategory: quant")));
        Taxonomy otherKinds = BUILT_IN.withUserRules(write("e.yaml", rule.replace("category: other", "kinds: [memcpy], category: other")));
        Taxonomy otherId = BUILT_IN.withUserRules(write("f.yaml", rule.replace("site.a", "site.b")));
        Set<String> digests = Set.of(a1.digest(), otherPattern.digest(), otherCategory.digest(), otherSub.digest(),
                otherKinds.digest(), otherId.digest());
        assertEquals(6, digests.size(), "each change of a rule gives a new digest");

        Taxonomy sourceOnly = BUILT_IN.withUserRules(write("g.yaml",
                rule.replace("subcategory: norm}", "subcategory: norm, source: 'somewhere', note: 'why'}")));
        assertEquals(a1.digest(), sourceOnly.digest(), "source and note do not change classifications");
    }

    // ---- the split pattern agrees with the plain regex ----------------------------------------------

    @Test
    void thePreCheckAgreesWithThePlainRegexOnTheCases() throws IOException {
        for (TaxonomyCasesTest.Case c : TaxonomyCasesTest.cases()) {
            Explanation e = BUILT_IN.explain(c.name(), c.kind());
            assertEquals(e.classification(), BUILT_IN.classify(c.name(), c.kind()), c.name());
            assertEquals(e.inMoeBlock() == null ? null : e.inMoeBlock().rule().classification(),
                    BUILT_IN.inMoeBlock(c.name(), c.kind()).orElse(null), c.name());
        }
    }

    @Test
    void eachAlternativeRequiresEveryPlainRunOutsideGroupsAndClasses() {
        assertEquals(List.of(List.of("nccl", "Kernel_AllReduce")),
                SplitPattern.of("nccl(Dev|Symk?Dev)?Kernel_AllReduce").runs());
        assertEquals(List.of(List.of("rms", "norm"), List.of("layer", "norm")), SplitPattern.of("rms_?norm|layer_?norm").runs());
        assertEquals(List.of(List.of("rope")), SplitPattern.of("(?<![A-Za-z])m?rope(?![a-z])").runs());
        assertEquals(List.of(List.of("uant")), SplitPattern.of("[Qq]uant").runs());
        assertEquals(List.of(List.of("deep_gemm::", "<", "(deep_gemm::GemmType)")),
                SplitPattern.of("deep_gemm::\\w+<.*\\(deep_gemm::GemmType\\)[125]\\b").runs());
        assertEquals(List.of(List.of("ab")), SplitPattern.of("abc{0,1}").runs());
        assertEquals(List.of(List.of("ab", "c")), SplitPattern.of("ab+c").runs(), "b+: one b at least, then c");
        assertEquals(List.of(List.of("quick", "reduce"), List.of("quick_all_reduce")),
                SplitPattern.of("(?i)Quick_?Reduce|quick_all_reduce").runs(), "a leading (?i): runs in lower case");
        assertEquals(null, SplitPattern.of("(?s)moe"), "other inline flags: the whole regex");
        assertEquals(null, SplitPattern.of("a(?i)b"), "(?i) not at the start: the whole regex");
        assertEquals(null, SplitPattern.of("foo|\\d+"), "an alternative without a literal: the whole regex");
        assertEquals(null, SplitPattern.of("(a)\\1"), "a back reference: the whole regex");
        assertEquals(null, SplitPattern.of(".*"));
        assertEquals(null, SplitPattern.of(""));
    }

    @Test
    void aSplitPatternIsFoundWhereTheWholeRegexIs() {
        // An alternative's runs in the name but not the alternative itself; a match of the second alternative
        // only; the runs in another order than the regex's; ASCII case under (?i), and a non-ASCII letter that
        // Java's (?i) does not fold.
        foundAsTheWholeRegex("penalt\\w*_kernel|[Aa]rg[Mm]ax", "_kernel penalty", false);
        foundAsTheWholeRegex("penalt\\w*_kernel|[Aa]rg[Mm]ax", "reduce_ArgMax_kernel", true);
        foundAsTheWholeRegex("rms_?norm", "norm_rms", false);
        foundAsTheWholeRegex("(?i)quick_?reduce", "QuickReduceKernel", true);
        foundAsTheWholeRegex("(?i)\u00e9tape", "\u00c9TAPE", false);
        foundAsTheWholeRegex("(?i)\u00e9tape", "\u00e9TAPE", true);
    }

    private static void foundAsTheWholeRegex(String regex, String name, boolean expected) {
        assertEquals(expected, java.util.regex.Pattern.compile(regex).matcher(name).find(), regex + " in " + name);
        assertEquals(expected, SplitPattern.of(regex).find(name), regex + " split, in " + name);
    }
}
