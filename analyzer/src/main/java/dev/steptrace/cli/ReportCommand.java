package dev.steptrace.cli;

import dev.steptrace.analysis.ReportBuilder;
import dev.steptrace.api.AnalysisOptions;
import dev.steptrace.api.Capture;
import dev.steptrace.api.CaptureInfo;
import dev.steptrace.api.Steptrace;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.store.Store;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Write the bottleneck report of a capture (a directory of per-rank traces):",
                "where each step's time goes by kernel category, per rank and per step, collectives,",
                "top kernels and capture-quality warnings. Ingests the traces first when needed."})
public final class ReportCommand implements Callable<Integer> {
    public enum Format { html, md, json }

    @Parameters(index = "0", paramLabel = "PATH", description = "A capture directory (or a trace file in it).")
    Path path;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Output directory (default: steptrace-out/<capture name>/ in the working directory).")
    Path out;

    @Option(names = "--format", split = ",", paramLabel = "FORMAT",
            description = "Any of html, md, json (default: all three).")
    Set<Format> formats;

    @Option(names = "--phase", paramLabel = "PHASE", description = "Only this phase (decode, prefill, mixed, unknown).")
    String phase;

    @Option(names = "--taxonomy", paramLabel = "FILE", description = "Kernel rules to try before the built-in ones.")
    Path taxonomyFile;

    @Option(names = "--templates", paramLabel = "DIR", description = "Freemarker templates overriding the built-in ones.")
    Path templates;

    @Option(names = "--step-regex", paramLabel = "REGEX",
            description = "Annotation names that mark steps (Java regex), instead of the built-in step sources.")
    String stepRegex;

    @Mixin
    CommonOptions common;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Set<Format> wanted = formats == null || formats.isEmpty() ? EnumSet.allOf(Format.class) : formats;
        Pattern regex = compile(stepRegex);
        if (phase != null && !ReportBuilder.PHASES.contains(phase)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--phase must be one of " + ReportBuilder.PHASES + ", not " + phase);
        }
        AnalysisOptions options = new AnalysisOptions(Taxonomies.load(taxonomyFile), regex);
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Steptrace st = Steptrace.openOrCreate(Store.resolve(common.db))) {
            List<CaptureInfo> captures = st.load(path, IngestOptions.defaults(),
                    IngestCommand.listener(common.quiet, err));
            for (CaptureInfo info : captures) {
                try (Capture capture = st.capture(info.id(), options)) {
                    List<Path> written = capture.writeReport(outputDir(info.name(), captures.size()), templates,
                            phase, wanted.contains(Format.json), wanted.contains(Format.html),
                            wanted.contains(Format.md));
                    for (Path p : written) {
                        stdout.println(p);
                    }
                }
            }
        }
        stdout.flush();
        return Main.OK;
    }

    private Path outputDir(String captureName, int captures) {
        if (out == null) {
            return Path.of("steptrace-out", captureName);
        }
        return captures > 1 ? out.resolve(captureName) : out;
    }

    static Pattern compile(String regex) {
        if (regex == null) {
            return null;
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new UserError("--step-regex is not a valid regular expression: " + e.getDescription());
        }
    }

}
