package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Threshold;
import dev.steptrace.testing.TestData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** docs/warnings.md lists exactly the registered rules, each as the rule says. */
class WarningsCatalogueTest {
    private static final String MARKER = "<!-- rules: kept equal to the registered rules by WarningsCatalogueTest -->";

    @Test
    void theCatalogueIsTheRegisteredRules() throws IOException {
        Path doc = TestData.repoRoot().resolve("docs/warnings.md");
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        int at = text.indexOf(MARKER);
        assertTrue(at >= 0, "docs/warnings.md lacks the line " + MARKER);
        String expected = render(CaptureRules.catalogue());
        assertEquals(expected, text.substring(at + MARKER.length()),
                "docs/warnings.md differs from the registered rules; after the marker it should read:\n" + expected);
    }

    @Test
    void idsAreUnique() {
        Set<String> ids = new HashSet<>();
        for (Rule r : CaptureRules.catalogue()) {
            assertTrue(ids.add(r.id()), "two rules have id " + r.id());
        }
    }

    private static String render(List<Rule> rules) {
        StringBuilder sb = new StringBuilder("\n");
        for (Rule r : rules) {
            sb.append("\n### `").append(r.id()).append("`\n\n");
            sb.append("**").append(r.severity().label()).append("**: ").append(r.summary()).append("\n\n");
            sb.append(r.explanation()).append("\n\n");
            if (r.thresholds().isEmpty()) {
                sb.append("Thresholds: none (any occurrence is reported).\n\n");
            } else {
                sb.append("| threshold | default | meaning |\n|:---|---:|:---|\n");
                for (Threshold t : r.thresholds()) {
                    sb.append("| `").append(r.id()).append('.').append(t.name()).append("` | ")
                            .append(String.format(Locale.ROOT, "%s %s", plain(t.defaultValue()), t.unit()))
                            .append(" | ").append(t.meaning()).append(" |\n");
                }
                sb.append('\n');
            }
            sb.append("Evidence:\n\n```sql\n").append(r.evidence()).append("\n```\n");
        }
        return sb.toString();
    }

    private static String plain(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
