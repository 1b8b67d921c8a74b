package dev.steptrace.cli;

import dev.steptrace.api.AnalysisOptions;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** How the commands that analyze a capture classify kernels and find steps. */
public final class AnalysisArgs {
    @Option(names = "--taxonomy", paramLabel = "FILE", description = "Kernel rules to try before the built-in ones.")
    Path taxonomyFile;

    @Option(names = "--step-regex", paramLabel = "REGEX",
            description = "Annotation names that mark steps (Java regex), instead of the built-in step sources.")
    String stepRegex;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    AnalysisOptions options() {
        Pattern regex = null;
        if (stepRegex != null) {
            try {
                regex = Pattern.compile(stepRegex);
            } catch (PatternSyntaxException e) {
                throw new ParameterException(command.commandLine(),
                        "--step-regex is not a valid regular expression: " + e.getDescription());
            }
        }
        return new AnalysisOptions(Taxonomies.load(taxonomyFile), regex);
    }
}
