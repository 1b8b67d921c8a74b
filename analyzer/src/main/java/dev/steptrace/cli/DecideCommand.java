package dev.steptrace.cli;

import dev.steptrace.analysis.CaptureAnalysis;
import dev.steptrace.analysis.CaptureScope;
import dev.steptrace.analysis.ReportBuilder;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.decide.BenchResults;
import dev.steptrace.decide.CaptureBatch;
import dev.steptrace.decide.Decision;
import dev.steptrace.decide.DecisionEngine;
import dev.steptrace.decide.DecisionWriters;
import dev.steptrace.decide.Scenario;
import dev.steptrace.decide.ScenarioException;
import dev.steptrace.decide.ScenarioLoader;
import dev.steptrace.report.ReportContent;
import dev.steptrace.report.TemplateLoader;
import dev.steptrace.store.Store;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "decide", mixinStandardHelpOptions = true,
        description = {"Write a decision memo from a capture and a scenario (docs/scenarios.md):",
                "the tax's share and Amdahl bound, each option's projected step and speedup,",
                "the options the constraints exclude, accept or pursue, and when to revisit.",
                "Writes decision.html, decision.md and decision.json.",
                "Bundled scenarios: pcie-allreduce-tax."})
public final class DecideCommand implements Callable<Integer> {
    public enum Format { html, md, json }

    @Parameters(index = "0", paramLabel = "PATH", description = "A capture directory (or a trace file in it); ingested when needed.")
    Path path;

    @Option(names = "--scenario", required = true, paramLabel = "NAME_OR_FILE",
            description = "A scenario file (YAML or JSON) or the name of a bundled scenario (pcie-allreduce-tax).")
    String scenario;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Output directory (default: steptrace-out/<capture name>/ in the working directory).")
    Path out;

    @Option(names = "--format", split = ",", paramLabel = "FORMAT",
            description = "Any of html, md, json (default: all three).")
    Set<Format> formats;

    @Option(names = "--bench", arity = "1..*", paramLabel = "FILE",
            description = "vLLM bench serve result files (--save-result JSON): throughput and latency by concurrency.")
    List<Path> bench;

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
        Pattern regex = ReportCommand.compile(stepRegex);
        // Everything the user wrote is checked before any trace is read.
        Scenario sc;
        List<Decision.BenchRun> runs;
        try {
            sc = ScenarioLoader.load(scenario);
            runs = BenchResults.load(bench == null ? List.of() : bench);
        } catch (ScenarioException e) {
            throw new UserError(e.getMessage(), e);
        }
        Decision.Bench benchSummary = BenchResults.summarize(bench == null ? List.of() : bench, runs);
        TemplateLoader loader = new TemplateLoader(templates);
        Taxonomy taxonomy = Taxonomies.load(taxonomyFile);
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Store store = Store.open(Store.resolve(common.db))) {
            List<Integer> captures = ReportCommand.ingestAndFind(store, path, common.quiet, err);
            for (int captureId : captures) {
                try (CaptureAnalysis analysis = CaptureAnalysis.run(store, captureId, taxonomy, regex)) {
                    ReportContent content = new ReportBuilder(analysis).build(Version.current());
                    Decision decision;
                    try {
                        CaptureBatch batch = CaptureBatch.of(analysis, sc.question().phase());
                        decision = DecisionEngine.decide(content.report(), batch, sc, benchSummary, Version.current());
                    } catch (ScenarioException e) {
                        throw new UserError(e.getMessage(), e);
                    }
                    Path dir = outputDir(analysis.scope(), captures.size());
                    List<Path> written = DecisionWriters.write(decision, sc, dir, loader, wanted.contains(Format.json),
                            wanted.contains(Format.html), wanted.contains(Format.md), true);
                    for (Path p : written) {
                        stdout.println(p);
                    }
                    if (!common.quiet) {
                        err.println("steptrace: " + analysis.scope().name() + ": " + decision.decision()
                                + (decision.option() == null ? "" : " " + decision.option()) + ": " + decision.summary());
                    }
                }
            }
        }
        stdout.flush();
        err.flush();
        return Main.OK;
    }

    private Path outputDir(CaptureScope scope, int captures) throws java.io.IOException {
        Path dir = out == null ? Path.of("steptrace-out", scope.name()) : captures > 1 ? out.resolve(scope.name()) : out;
        Files.createDirectories(dir);
        return dir;
    }
}
