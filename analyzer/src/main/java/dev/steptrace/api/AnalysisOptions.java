package dev.steptrace.api;

import dev.steptrace.classify.Taxonomy;
import dev.steptrace.classify.TaxonomyException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * How a capture is analysed: the kernel taxonomy (built-in rules, optionally with a user's rule file in
 * front, as {@code --taxonomy FILE} does) and the step source ({@code --step-regex}).
 *
 * @param taxonomy  the kernel classification rules
 * @param stepRegex annotation names that mark steps, overriding the built-in step sources; null for
 *                  the built-in sources
 */
public record AnalysisOptions(Taxonomy taxonomy, Pattern stepRegex) {
    /**
     * Checks the taxonomy is given.
     *
     * @param taxonomy  the kernel classification rules
     * @param stepRegex annotation names that mark steps, or null
     */
    public AnalysisOptions {
        Objects.requireNonNull(taxonomy, "taxonomy");
    }

    /**
     * The built-in taxonomy and step sources: what {@code steptrace report} uses without options.
     *
     * @return the default options
     */
    public static AnalysisOptions defaults() {
        try {
            return new AnalysisOptions(Taxonomy.builtIn(), null);
        } catch (TaxonomyException e) {
            throw SteptraceException.internal("the built-in taxonomy cannot be read: " + e.getMessage(), e);
        }
    }

    /**
     * These options with a user's rule file tried before the built-in rules.
     *
     * @param rules a taxonomy YAML file (docs/taxonomy.md)
     * @return new options
     */
    public AnalysisOptions withTaxonomyFile(Path rules) {
        try {
            return new AnalysisOptions(taxonomy.withUserRules(rules), stepRegex);
        } catch (TaxonomyException e) {
            throw new SteptraceException(e.getMessage(), e);
        }
    }

    /**
     * These options with steps taken from the annotations whose names match {@code regex}.
     *
     * @param regex a Java regular expression, or null for the built-in step sources
     * @return new options
     */
    public AnalysisOptions withStepRegex(String regex) {
        if (regex == null) {
            return new AnalysisOptions(taxonomy, null);
        }
        try {
            return new AnalysisOptions(taxonomy, Pattern.compile(regex));
        } catch (PatternSyntaxException e) {
            throw new SteptraceException("the step regex is not a valid regular expression: " + e.getDescription(), e);
        }
    }
}
