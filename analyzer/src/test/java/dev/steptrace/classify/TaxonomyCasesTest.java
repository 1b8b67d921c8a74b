package dev.steptrace.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real kernel names with the category a person determined from the source notes of docs/reference/kernel-names.md
 * and the traces ({@code taxonomy-cases.tsv}); the built-in rules must agree with every row.
 */
class TaxonomyCasesTest {
    private static final Taxonomy TAXONOMY = Taxonomy.builtIn();

    /** {@code inMoeBlock}: category/subcategory a context rule gives the name inside an MoE block, or null. */
    record Case(String name, String kind, String category, String subcategory, String why, String inMoeBlock) {
    }

    static List<Case> cases() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String[] f : tsv("taxonomy-cases.tsv", 5, 6)) {
            cases.add(new Case(f[0], f[1], f[2], f[3], f[4], f.length == 6 ? f[5] : null));
        }
        return cases;
    }

    /** The rows of a case file under this class's resources (blank lines and # comments left out), each checked for its fields. */
    private static List<String[]> tsv(String file, int minFields, int maxFields) throws IOException {
        List<String[]> rows = new ArrayList<>();
        try (InputStream in = TaxonomyCasesTest.class.getResourceAsStream(file);
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                if (f.length < minFields || f.length > maxFields) {
                    throw new IllegalStateException(file + ": expected " + (minFields == maxFields ? "" + minFields
                            : minFields + " or " + maxFields) + " tab-separated fields: " + line);
                }
                rows.add(f);
            }
        }
        return rows;
    }

    static Stream<Arguments> rows() throws IOException {
        return cases().stream().map(c -> Arguments.of(c.why(), c));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void classifiesAsAPersonDid(String why, Case c) {
        Classification got = TAXONOMY.classify(c.name(), c.kind());
        assertEquals(c.category() + "/" + c.subcategory(), got.categoryId() + "/" + got.subcategory(),
                () -> c.name() + " (" + why + ") was classified by rule " + got.ruleId());
        String inBlock = TAXONOMY.inMoeBlock(c.name(), c.kind())
                .map(k -> k.categoryId() + "/" + k.subcategory()).orElse(null);
        assertEquals(c.inMoeBlock(), inBlock, () -> c.name() + " (" + why + ") inside an MoE block");
    }

    /** A case of {@code taxonomy-context-cases.tsv}: a name launched in a context, with the class a person expects. */
    record ContextCase(String name, String kind, LaunchContext context, String category, String subcategory, String why) {
    }

    static Stream<Arguments> contextRows() throws IOException {
        List<Arguments> rows = new ArrayList<>();
        for (String[] f : tsv("taxonomy-context-cases.tsv", 7, 7)) {
            ContextCase c = new ContextCase(f[0], f[1], new LaunchContext(list(f[2]), list(f[3])), f[4], f[5], f[6]);
            rows.add(Arguments.of(c.why(), c));
        }
        return rows.stream();
    }

    private static List<String> list(String field) {
        return field.equals("-") ? List.of() : List.of(field.split(";"));
    }

    /** The class in context, by explain (every regex as written); and the rules the analysis would try, by launchRules. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("contextRows")
    void classifiesInContextAsAPersonDid(String why, ContextCase c) {
        Classification got = TAXONOMY.explain(c.name(), c.kind(), c.context()).classification();
        assertEquals(c.category() + "/" + c.subcategory(), got.categoryId() + "/" + got.subcategory(),
                () -> c.name() + " (" + why + ") was classified by rule " + got.ruleId());
        Classification analysis = TAXONOMY.launchRules(c.name(), c.kind()).stream()
                .filter(p -> p.rule().launch().holds(c.context())).findFirst()
                .map(p -> p.rule().classification()).orElse(TAXONOMY.classify(c.name(), c.kind()));
        assertEquals(got, analysis, () -> c.name() + " (" + why + "): launchRules and explain disagree");
    }

    @Test
    void theTableIsBigEnoughAndCoversEveryCategory() throws IOException {
        List<Case> cases = cases();
        assertTrue(cases.size() >= 60, "at least 60 cases, found " + cases.size());
        for (Category cat : Category.values()) {
            assertTrue(cases.stream().anyMatch(c -> c.category().equals(cat.id())), "no case for " + cat.id());
        }
        assertTrue(cases.stream().filter(c -> c.why().startsWith("TRAP")).count() >= 15, "the traps are covered");
    }

    /** Issue #14: names of ROCm, TensorRT-LLM, SGLang and their libraries, each citing the repository it comes from. */
    @Test
    void otherEnginesAreCoveredWithTheirSources() throws IOException {
        java.util.regex.Pattern source = java.util.regex.Pattern.compile(
                "ROCm/|AMD-AGI/TraceLens|NVIDIA/TensorRT-LLM|sgl-project/sglang|deepseek-ai/DeepEP|flashinfer include/"
                        + "|flashinfer csrc/|vllm-project/vllm csrc/rocm");
        long n = cases().stream().filter(c -> source.matcher(c.why()).find()).count();
        assertTrue(n >= 46, "at least the 6 names of issue #14 and 40 more, each with repository and path; found " + n);
    }
}
