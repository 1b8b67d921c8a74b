package dev.steptrace.analysis;

import dev.steptrace.classify.Taxonomy;
import dev.steptrace.common.Digests;
import dev.steptrace.rules.Thresholds;
import java.util.regex.Pattern;

/**
 * The options that shape an analysis, and the key its rows carry in the store's analysis tables
 * ({@code analysis_key}): {@value #DEFAULT} for the built-in taxonomy and step sources (what
 * {@code ingest} and a plain {@code report} use), else {@code custom-} and the first 12 hex digits of the
 * SHA-256 of the taxonomy's digest, the step regex and the rule threshold overrides: an analysis kept
 * under other options is never read as this one.
 *
 * @param taxonomy   the kernel classification rules
 * @param stepRegex  annotation names that mark steps, or null for the built-in step sources
 * @param thresholds the capture-quality rules' thresholds (docs/warnings.md)
 */
public record AnalysisKey(String id, Taxonomy taxonomy, Pattern stepRegex, Thresholds thresholds) {
    public static final String DEFAULT = "default";

    public static AnalysisKey of(Taxonomy taxonomy, Pattern stepRegex, Thresholds thresholds) {
        if (taxonomy.userRuleCount() == 0 && stepRegex == null && thresholds.isDefault()) {
            return new AnalysisKey(DEFAULT, taxonomy, null, thresholds);
        }
        String text = taxonomy.digest() + '\u0000' + (stepRegex == null ? "" : stepRegex.pattern())
                // Without overrides the text is what it was before thresholds could be overridden: kept keys stay valid.
                + (thresholds.isDefault() ? "" : '\u0000' + thresholds.text());
        return new AnalysisKey("custom-" + Digests.sha256(text).substring(0, 12), taxonomy, stepRegex, thresholds);
    }
}
