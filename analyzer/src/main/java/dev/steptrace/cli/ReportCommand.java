package dev.steptrace.cli;

import dev.steptrace.api.AnalysisOptions;
import dev.steptrace.api.Capture;
import dev.steptrace.api.CaptureInfo;
import dev.steptrace.api.Steptrace;
import dev.steptrace.common.OutputFiles;
import dev.steptrace.common.Phase;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.report.IndexWriter;
import dev.steptrace.report.ReportIndex;
import dev.steptrace.store.Store;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Write the bottleneck report of each capture under PATH, and the timeline of its slowest step.",
                "A capture is a run: the per-rank traces that belong together. The report says where each step's "
                        + "time goes by kernel category, per rank and per step, collectives, top kernels and "
                        + "capture-quality warnings; the timeline shows the slowest step on every rank, for ui.perfetto.dev"
                        + " (docs/timeline.md). Several captures get an index (index.html, index.md, index.json) beside "
                        + "their reports. Ingests the traces first when needed."})
public final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PATH",
            description = "A directory of traces (its captures, and those below it), or one trace file (that file alone).")
    Path path;

    @Option(names = "--phase", paramLabel = "PHASE", description = "Only this phase (decode, prefill, mixed, unknown).")
    String phase;

    @Option(names = "--no-timeline", description = "Do not write the slowest step's timeline beside the report.")
    boolean noTimeline;

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
        if (phase != null && !Phase.IDS.contains(phase)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--phase must be one of " + Phase.IDS + ", not " + phase);
        }
        AnalysisOptions options = analysis.options();
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = documents.wants(DocumentOptions.Format.json);
        boolean html = documents.wants(DocumentOptions.Format.html);
        boolean md = documents.wants(DocumentOptions.Format.md);
        try (Steptrace st = Steptrace.openOrCreate(Store.resolve(common.db))) {
            List<CaptureInfo> captures = st.load(path, IngestOptions.defaults(),
                    IngestCommand.listener(common.quiet, err));
            List<ReportIndex.Entry> entries = new ArrayList<>();
            for (CaptureInfo info : captures) {
                try (Capture capture = Progress.analysed(st, info.id(), options, common.quiet)) {
                    List<Path> written = capture.writeReport(documents.dir(info.name(), captures.size()),
                            documents.templates, phase, json, html, md, !noTimeline);
                    written.forEach(stdout::println);
                    String report = html ? "report.html" : md ? "report.md" : "report.json";
                    entries.add(ReportIndex.entry(capture.report(), OutputFiles.folderName(info.name()) + "/" + report));
                }
            }
            if (captures.size() > 1) {
                // Several runs under PATH: an index of their reports beside their folders.
                IndexWriter.write(ReportIndex.of(Steptrace.version(), entries), documents.indexDir(),
                        documents.templates, json, html, md).forEach(stdout::println);
            }
            if (st.store().readOnly()) {
                err.println("steptrace: warning: the store " + st.store().path() + " cannot be written (" + st.store().whyReadOnly() + "):"
                        + " the report's analysis is not kept in it for the next report");
            }
        }
        stdout.flush();
        return Main.OK;
    }
}
