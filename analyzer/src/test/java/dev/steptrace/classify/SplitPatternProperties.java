package dev.steptrace.classify;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Every built-in rule's split pattern is found in exactly the names its whole regex is found in. The names
 * are made of pieces of the rules' own text (their runs, and slices of their regexes, so near misses are
 * common), separators and letters of either case, so the runs' pre-check passes and fails both ways.
 */
class SplitPatternProperties {
    private static final List<TaxonomyRule> RULES = Taxonomy.builtIn().rules();
    private static final List<String> PIECES = pieces();

    @Property(tries = 2000)
    void everyBuiltInRuleIsFoundWhereItsWholeRegexIs(@ForAll long seed) {
        Random random = new Random(seed);
        StringBuilder name = new StringBuilder();
        int parts = 1 + random.nextInt(8);
        for (int i = 0; i < parts; i++) {
            String piece = PIECES.get(random.nextInt(PIECES.size()));
            name.append(random.nextInt(4) == 0 ? swapCase(piece) : piece);
            name.append(" _:<>(),0".charAt(random.nextInt(9)));
        }
        String n = name.toString();
        for (TaxonomyRule r : RULES) {
            SplitPattern split = SplitPattern.of(r.match());
            if (split != null) {
                assertEquals(r.matchesName(n), split.find(n), r.id() + " in " + n);
            }
        }
    }

    private static List<String> pieces() {
        List<String> out = new ArrayList<>(List.of("void", "kernel", "Kernel", "at::native::", "ncclDevKernel", "x"));
        for (TaxonomyRule r : RULES) {
            SplitPattern split = SplitPattern.of(r.match());
            if (split != null) {
                split.runs().forEach(out::addAll);
            }
            String plain = r.match().replaceAll("[\\\\^$.|?*+()\\[\\]{}]", "");
            for (int i = 0; i + 4 <= plain.length(); i += 3) {
                out.add(plain.substring(i, Math.min(plain.length(), i + 4 + i % 7)));
            }
        }
        return out;
    }

    private static String swapCase(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            b.append(Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c));
        }
        return b.toString();
    }
}
