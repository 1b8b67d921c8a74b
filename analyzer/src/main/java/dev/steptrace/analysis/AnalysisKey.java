package dev.steptrace.analysis;

import dev.steptrace.classify.Taxonomy;
import dev.steptrace.common.Digests;
import java.util.regex.Pattern;

/**
 * The options that shape an analysis, and the key its rows carry in the store's analysis tables
 * ({@code analysis_key}): {@value #DEFAULT} for the built-in taxonomy and step sources (what
 * {@code ingest} and a plain {@code report} use), else {@code custom-} and the first 12 hex digits of the
 * SHA-256 of the taxonomy's digest and the step regex.
 *
 * @param taxonomy  the kernel classification rules
 * @param stepRegex annotation names that mark steps, or null for the built-in step sources
 */
public record AnalysisKey(String id, Taxonomy taxonomy, Pattern stepRegex) {
    public static final String DEFAULT = "default";

    public static AnalysisKey of(Taxonomy taxonomy, Pattern stepRegex) {
        if (taxonomy.userRuleCount() == 0 && stepRegex == null) {
            return new AnalysisKey(DEFAULT, taxonomy, null);
        }
        String text = taxonomy.digest() + '\u0000' + (stepRegex == null ? "" : stepRegex.pattern());
        return new AnalysisKey("custom-" + Digests.sha256(text).substring(0, 12), taxonomy, stepRegex);
    }
}
