package dev.steptrace.cli;

import dev.steptrace.api.AnalysisOptions;
import dev.steptrace.api.SteptraceException;
import dev.steptrace.roofline.DevicePeaks;
import dev.steptrace.roofline.ModelSpec;
import dev.steptrace.roofline.RooflineInputs;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Thresholds;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** How the commands that analyze a capture classify kernels, find steps and check the capture. */
public final class AnalysisArgs {
    @Option(names = "--taxonomy", paramLabel = "FILE", description = "Kernel rules to try before the built-in ones.")
    Path taxonomyFile;

    @Option(names = "--step-regex", paramLabel = "REGEX",
            description = "Annotation names that mark steps (Java regex), instead of the built-in step sources.")
    String stepRegex;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--device-peaks", paramLabel = "FILE",
            description = "GPU peak rates to try before the built-in ones (docs/roofline.md).")
    Path devicePeaksFile;

    @Option(names = "--model", paramLabel = "FILE",
            description = "A model file: floors per decode step for each category (docs/roofline.md).")
    Path modelFile;

    @Option(names = "--warn-threshold", paramLabel = "RULE.NAME=VALUE",
            description = "Override a check's threshold, e.g. clock_offset.offset_us=500 (repeatable; docs/warnings.md"
                    + " lists the capture-quality rules, docs/scenarios.md the decision checks).")
    List<String> warnThresholds;

    AnalysisOptions options() {
        return options(List.of());
    }

    /**
     * The analysis options, the {@code --warn-threshold} overrides of the capture-quality rules among them; those
     * naming one of {@code commandRules} (a command's own checks, decide's) are the command's, {@link #thresholdsOf}.
     */
    AnalysisOptions options(List<Rule> commandRules) {
        Pattern regex = null;
        if (stepRegex != null) {
            try {
                regex = Pattern.compile(stepRegex);
            } catch (PatternSyntaxException e) {
                throw new ParameterException(command.commandLine(),
                        "--step-regex is not a valid regular expression: " + e.getDescription());
            }
        }
        try {
            DevicePeaks peaks = devicePeaksFile == null ? DevicePeaks.builtIn()
                    : DevicePeaks.builtIn().withUserFile(devicePeaksFile);
            ModelSpec model = modelFile == null ? null : ModelSpec.read(modelFile);
            return new AnalysisOptions(Taxonomies.load(taxonomyFile), regex, new RooflineInputs(peaks, model))
                    .withWarnThresholds(overrides(commandRules, false));
        } catch (SteptraceException e) {
            throw new ParameterException(command.commandLine(), e.getMessage());
        }
    }

    /** The {@code --warn-threshold} overrides of {@code commandRules}: a command's own checks. */
    Thresholds thresholdsOf(List<Rule> commandRules) {
        try {
            return Thresholds.parse(overrides(commandRules, true), commandRules);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), "--warn-threshold " + e.getMessage());
        }
    }

    /** The overrides that name one of {@code rules} ({@code of}), or the others. */
    private List<String> overrides(List<Rule> rules, boolean of) {
        return (warnThresholds == null ? List.<String>of() : warnThresholds).stream()
                .filter(o -> rules.stream().anyMatch(r -> o.startsWith(r.id() + ".")) == of).toList();
    }
}
