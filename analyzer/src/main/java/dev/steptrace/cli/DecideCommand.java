package dev.steptrace.cli;

import dev.steptrace.common.InputException;
import dev.steptrace.api.AnalysisOptions;
import dev.steptrace.api.Capture;
import dev.steptrace.api.CaptureInfo;
import dev.steptrace.api.Steptrace;
import dev.steptrace.ingest.IngestOptions;

import dev.steptrace.common.Messages;
import dev.steptrace.decide.BenchResults;
import dev.steptrace.decide.CaptureBatch;
import dev.steptrace.decide.Decision;
import dev.steptrace.decide.DecisionChecks;
import dev.steptrace.decide.DecisionEngine;
import dev.steptrace.decide.DecisionWriters;
import dev.steptrace.decide.Scenario;
import dev.steptrace.decide.ScenarioLoader;
import dev.steptrace.report.ReportContent;
import dev.steptrace.report.TemplateLoader;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.Store;
import dev.steptrace.whatif.WhatIf;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "decide", mixinStandardHelpOptions = true,
        description = {"Write a decision memo from a capture and a scenario.",
                "The memo (docs/scenarios.md) gives the tax's share and Amdahl bound, each option's projected step and speedup, the options"
                        + " the constraints exclude, accept or pursue, and when to revisit. Writes decision.html, "
                        + "decision.md and decision.json. Bundled scenarios: pcie-allreduce-tax, nvlink-tp-allreduce, "
                        + "host-bound-decode, straggler."})
public final class DecideCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PATH", description = "A capture directory (or a trace file in it); ingested when needed.")
    Path path;

    @Option(names = "--scenario", required = true, paramLabel = "NAME_OR_FILE",
            description = "A scenario file (YAML or JSON) or the name of a bundled scenario (pcie-allreduce-tax, nvlink-tp-allreduce, host-bound-decode, straggler).")
    String scenario;

    @Option(names = "--bench", arity = "1..*", paramLabel = "FILE",
            description = "vLLM bench serve result files (--save-result JSON): throughput and latency by concurrency.")
    List<Path> bench;

    @Mixin
    AnalysisArgs analysis;

    @Mixin
    DocumentOptions documents;

    @Mixin
    CommonOptions common;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        // Everything the user wrote is checked before any trace is read.
        Scenario sc = ScenarioLoader.load(scenario);
        List<Decision.BenchRun> runs = BenchResults.load(bench == null ? List.of() : bench);
        // --warn-threshold names capture-quality rules (the analysis's) or the memo's checks (these).
        Thresholds checks = analysis.thresholdsOf(DecisionChecks.catalogue());
        Decision.Bench benchSummary = BenchResults.summarize(bench == null ? List.of() : bench, runs, checks);
        TemplateLoader loader = new TemplateLoader(documents.templates);
        AnalysisOptions options = analysis.options(DecisionChecks.catalogue());
        sc.checkSubcategories(options.taxonomy());
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Steptrace st = Steptrace.openOrCreate(Store.resolve(common.db))) {
            List<CaptureInfo> captures = st.load(path, IngestOptions.defaults(),
                    IngestCommand.listener(common.quiet, err));
            for (CaptureInfo info : captures) {
                try (Capture capture = Progress.analysed(st, info.id(), options, common.quiet)) {
                    ReportContent content = capture.reportContent();
                    CaptureBatch batch = CaptureBatch.of(capture.analysis(), sc.question().phase());
                    // The options stated as whatif changes: the question's phase replayed under each.
                    Map<String, WhatIf.PhaseProjection> replays = DecisionEngine.replaysOf(sc,
                            (changes, phase) -> capture.whatIf(changes, phase).stream().findFirst().orElse(null));
                    Decision decision = DecisionEngine.decide(content.report(), batch, sc, benchSummary, checks, replays,
                            Version.current());
                    Path dir = documents.dir(info.name(), captures.size());
                    List<Path> written;
                    try {
                        Files.createDirectories(dir);
                        written = DecisionWriters.write(decision, sc, dir, loader,
                                documents.wants(DocumentOptions.Format.json), documents.wants(DocumentOptions.Format.html),
                                documents.wants(DocumentOptions.Format.md), true);
                    } catch (IOException e) {
                        throw new InputException("cannot write the decision memo into " + dir + ": " + Messages.io(e), e);
                    }
                    for (Path p : written) {
                        stdout.println(p);
                    }
                    if (!common.quiet) {
                        err.println("steptrace: " + info.name() + ": " + decision.decision()
                                + (decision.option() == null ? "" : " " + decision.option()) + ": " + decision.summary());
                    }
                }
            }
        }
        stdout.flush();
        err.flush();
        return Main.OK;
    }
}
