package dev.steptrace.cli;

import dev.steptrace.analysis.CaptureAnalysis;
import dev.steptrace.analysis.CaptureScope;
import dev.steptrace.analysis.ReportBuilder;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.IngestReport;
import dev.steptrace.ingest.TraceDiscovery;
import dev.steptrace.report.ReportContent;
import dev.steptrace.report.ReportWriters;
import dev.steptrace.store.Store;
import java.io.PrintWriter;
import java.nio.file.Files;
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
        Taxonomy taxonomy = Taxonomies.load(taxonomyFile);
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Store store = Store.open(Store.resolve(common.db))) {
            List<Integer> captures = ingestAndFind(store, path, common.quiet, err);
            for (int captureId : captures) {
                try (CaptureAnalysis analysis = CaptureAnalysis.run(store, captureId, taxonomy, regex)) {
                    ReportContent content = new ReportBuilder(analysis).build(Version.current());
                    if (phase != null) {
                        content = ReportWriters.onlyPhase(content, phase);
                    }
                    Path dir = outputDir(analysis.scope(), captures.size());
                    Files.createDirectories(dir);
                    List<Path> written = ReportWriters.writeAll(content, dir, templates,
                            wanted.contains(Format.json), wanted.contains(Format.html), wanted.contains(Format.md));
                    for (Path p : written) {
                        stdout.println(p);
                    }
                }
            }
        }
        stdout.flush();
        return Main.OK;
    }

    private Path outputDir(CaptureScope scope, int captures) {
        if (out == null) {
            return Path.of("steptrace-out", scope.name());
        }
        return captures > 1 ? out.resolve(scope.name()) : out;
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

    /**
     * Ingests PATH (a no-op for files already in the store and unchanged) and returns the captures
     * under it; fails with a message when there is none.
     */
    static List<Integer> ingestAndFind(Store store, Path path, boolean quiet, PrintWriter err) throws Exception {
        IngestReport report = IngestCommand.run(store, IngestOptions.defaults(), List.of(path), quiet);
        report.files().stream().filter(f -> f.reason() != null)
                .forEach(f -> err.println("steptrace: " + f.status().id() + ": " + f.path() + ": " + f.reason()));
        report.warnings().forEach(w -> err.println("steptrace: warning: " + w));
        Path dir = path.toRealPath();
        if (!Files.isDirectory(dir) || TraceDiscovery.isNsysParquetDir(dir)) {
            // A trace file, or an nsys Parquet export (a directory that is one trace): its capture is the parent.
            dir = dir.getParent();
        }
        List<Integer> captures = CaptureScope.under(store.connection(), dir);
        if (captures.isEmpty()) {
            throw new UserError("no usable trace in " + path
                    + " (looked for Kineto JSON traces, plain or gzip, with a \"traceEvents\" list,"
                    + " and Nsight Systems exports: SQLite, Parquet directory, Arrow stream)");
        }
        return captures;
    }
}
