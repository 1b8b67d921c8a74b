package dev.steptrace.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Threshold;
import dev.steptrace.store.QueryFile;
import dev.steptrace.testing.TestData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A catalogue of rules as a document lists them, after a marker line to its end: per rule its id,
 * severity, summary, explanation, thresholds and evidence query. The capture-quality rules
 * (docs/warnings.md) and the decision checks (docs/scenarios.md) are kept equal to their registries so.
 */
public final class RuleCatalogue {
    private RuleCatalogue() {}

    /**
     * Asserts that {@code doc} (relative to the repository) reads, after {@code marker}, exactly the rules
     * as registered, and that their ids are unique.
     *
     * @param noThresholds the line for a rule without thresholds
     */
    public static void assertDocumented(String doc, String marker, List<Rule> rules, String noThresholds) throws IOException {
        Set<String> ids = new HashSet<>();
        for (Rule r : rules) {
            assertTrue(ids.add(r.id()), "two rules have id " + r.id());
        }
        String text = Files.readString(TestData.repoRoot().resolve(doc), StandardCharsets.UTF_8);
        int at = text.indexOf(marker);
        assertTrue(at >= 0, doc + " lacks the line " + marker);
        String expected = render(rules, noThresholds);
        assertEquals(expected, text.substring(at + marker.length()),
                doc + " differs from the registered rules; after the marker it should read:\n" + expected);
    }

    private static String render(List<Rule> rules, String noThresholds) {
        StringBuilder sb = new StringBuilder("\n");
        for (Rule r : rules) {
            sb.append("\n### `").append(r.id()).append("`\n\n");
            sb.append("**").append(r.severity().label()).append("**: ").append(r.summary()).append("\n\n");
            sb.append(r.explanation()).append("\n\n");
            if (r.thresholds().isEmpty()) {
                sb.append(noThresholds).append("\n");
            } else {
                sb.append("| threshold | default | meaning |\n|:---|---:|:---|\n");
                for (Threshold t : r.thresholds()) {
                    sb.append("| `").append(r.id()).append('.').append(t.name()).append("` | ")
                            .append(plain(t.defaultValue())).append(t.unit().isEmpty() ? "" : " " + t.unit())
                            .append(" | ").append(t.meaning()).append(" |\n");
                }
            }
            if (r.evidence() != null) {
                sb.append("\nEvidence: query `").append(r.evidence()).append("` (`analysis/queries/").append(r.evidence())
                        .append(".sql`):\n\n```sql\n").append(QueryFile.load(r.evidence()).sql()).append("\n```\n");
            }
        }
        return sb.toString();
    }

    private static String plain(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%s", v);
    }
}
