package dev.steptrace.api;

import dev.steptrace.quality.CaptureRules;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.classify.TaxonomyException;
import dev.steptrace.roofline.ModelSpec;
import dev.steptrace.roofline.RooflineFileException;
import dev.steptrace.roofline.RooflineInputs;
import dev.steptrace.rules.Thresholds;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * How a capture is analysed: the kernel taxonomy (built-in rules, optionally with a user's rule file in
 * front, as {@code --taxonomy FILE} does), the step source ({@code --step-regex}), the capture-quality
 * rules' thresholds ({@code --warn-threshold RULE.NAME=VALUE}; docs/warnings.md), and the roofline's
 * device peaks and model file ({@code --device-peaks FILE}, {@code --model FILE}; docs/roofline.md).
 *
 * @param taxonomy   the kernel classification rules
 * @param stepRegex  annotation names that mark steps, overriding the built-in step sources; null for
 *                   the built-in sources
 * @param roofline   device peaks and model file
 * @param thresholds the rules' thresholds: their defaults with the user's overrides
 */
public record AnalysisOptions(Taxonomy taxonomy, Pattern stepRegex, RooflineInputs roofline, Thresholds thresholds) {
    /**
     * Checks the taxonomy, the roofline inputs and the thresholds are given.
     *
     * @param taxonomy   the kernel classification rules
     * @param stepRegex  annotation names that mark steps, or null
     * @param roofline   device peaks and model file
     * @param thresholds the rules' thresholds
     */
    public AnalysisOptions {
        Objects.requireNonNull(taxonomy, "taxonomy");
        Objects.requireNonNull(roofline, "roofline");
        Objects.requireNonNull(thresholds, "thresholds");
    }

    /**
     * The rules' default thresholds.
     *
     * @param taxonomy  the kernel classification rules
     * @param stepRegex annotation names that mark steps, or null
     * @param roofline  device peaks and model file
     */
    public AnalysisOptions(Taxonomy taxonomy, Pattern stepRegex, RooflineInputs roofline) {
        this(taxonomy, stepRegex, roofline, Thresholds.defaults());
    }

    /**
     * The built-in device peaks and no model file.
     *
     * @param taxonomy  the kernel classification rules
     * @param stepRegex annotation names that mark steps, or null
     */
    public AnalysisOptions(Taxonomy taxonomy, Pattern stepRegex) {
        this(taxonomy, stepRegex, RooflineInputs.defaults());
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
            return new AnalysisOptions(taxonomy.withUserRules(rules), stepRegex, roofline, thresholds);
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
            return new AnalysisOptions(taxonomy, null, roofline, thresholds);
        }
        try {
            return new AnalysisOptions(taxonomy, Pattern.compile(regex), roofline, thresholds);
        } catch (PatternSyntaxException e) {
            throw new SteptraceException("the step regex is not a valid regular expression: " + e.getDescription(), e);
        }
    }

    /**
     * These options with a user's device peaks file tried before the built-in peaks.
     *
     * @param peaks a device peaks YAML file (docs/roofline.md)
     * @return new options
     */
    public AnalysisOptions withDevicePeaksFile(Path peaks) {
        try {
            return new AnalysisOptions(taxonomy, stepRegex,
                    new RooflineInputs(roofline.peaks().withUserFile(peaks), roofline.model()), thresholds);
        } catch (RooflineFileException e) {
            throw new SteptraceException(e.getMessage(), e);
        }
    }

    /**
     * These options with a model file: floors per decode step for each category (docs/roofline.md).
     *
     * @param model a model YAML file
     * @return new options
     */
    public AnalysisOptions withModelFile(Path model) {
        try {
            return new AnalysisOptions(taxonomy, stepRegex, new RooflineInputs(roofline.peaks(), ModelSpec.read(model)),
                    thresholds);
        } catch (RooflineFileException e) {
            throw new SteptraceException(e.getMessage(), e);
        }
    }

    /**
     * These options with the rules' thresholds overridden, as {@code --warn-threshold} does: each
     * {@code RULE.NAME=VALUE} (docs/warnings.md lists the rules and their thresholds). The overrides are
     * part of the analysis's key: an analysis kept with other thresholds is made again, not reused.
     *
     * @param overrides {@code RULE.NAME=VALUE} each, e.g. {@code clock_offset.offset_us=500}
     * @return new options
     * @throws SteptraceException (a user error) naming the first override that is malformed, names no rule or
     *                            threshold, or whose value is not a number
     */
    public AnalysisOptions withWarnThresholds(List<String> overrides) {
        try {
            return new AnalysisOptions(taxonomy, stepRegex, roofline, Thresholds.parse(overrides, CaptureRules.catalogue()));
        } catch (IllegalArgumentException e) {
            throw new SteptraceException("--warn-threshold " + e.getMessage(), e);
        }
    }
}
