package dev.steptrace.cli;

import dev.steptrace.report.Fmt;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.steptrace.api.IngestListener;
import dev.steptrace.api.IngestProgress;
import dev.steptrace.api.Steptrace;
import dev.steptrace.api.SteptraceException;
import dev.steptrace.ingest.FileOutcome;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.IngestReport;
import dev.steptrace.store.Store;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = {"Stream traces (files, or directories searched recursively) into the store.",
                "Files already ingested and unchanged (same path, size and content hash) are skipped; those of a "
                        + "directory given that are no longer on disk leave the store. The files of each directory are "
                        + "grouped into captures, one per run, by what the traces say; each capture that changed is then "
                        + "analysed into the store, for `report` to write at once."})
public final class IngestCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Trace files or directories.")
    List<Path> paths;

    @Mixin
    CommonOptions common;

    @Option(names = "--json", description = "Print the per-file summary (with each file's capture) as JSON on stdout.")
    boolean json;

    @Option(names = "--threads", paramLabel = "N", description = "Files loaded at once (default: all cores; at most one per 32 MB of Java heap).")
    Integer threads;

    @Option(names = "--no-analysis",
            description = "Do not analyse the captures loaded (their first report then does: about 2 s per million GPU operations on two cores, 3 s for eager captures).")
    boolean noAnalysis;

    @Option(names = "--keep-python-functions",
            description = "Keep every python_function event (by default only the nn.Module ranges of"
                    + " with_modules=True are kept, for the kernels' launch contexts). Files loaded without them are"
                    + " loaded again.")
    boolean keepPython;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        atLeastOne(spec.commandLine(), "--threads", threads);
        IngestOptions defaults = IngestOptions.defaults();
        IngestOptions options = new IngestOptions(threads != null ? threads : defaults.threads(), keepPython, defaults.helperThreads());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Store store = Store.open(Store.resolve(common.db))) {
            IngestReport report = run(store, options, paths, common.quiet);
            List<String> unprepared = noAnalysis || store.readOnly() ? List.of()
                    : prepareReports(store, report, common.quiet);
            // DuckDB writes its log into the store's file when it closes, and says nothing when it cannot.
            String notCheckpointed = store.checkpoint();
            if (json) {
                out.println(toJson(report));
            } else {
                printSummary(out, report, store.path());
            }
            if (notCheckpointed != null) {
                err.println("steptrace: warning: what was loaded could not be written into the store " + store.path()
                        + " (" + notCheckpointed + "): it is kept in the store's log (" + store.path().getFileName()
                        + ".wal) and read from there; until there is room the store opens read-only");
            }
            for (FileOutcome f : report.files()) {
                if (f.reason() != null) {
                    err.println("steptrace: " + f.status().id() + ": " + f.path() + ": " + f.reason());
                }
            }
            for (String w : report.warnings()) {
                err.println("steptrace: warning: " + w);
            }
            unprepared.forEach(w -> err.println("steptrace: warning: " + w));
            if (!report.anyUsable() && report.storeProblem() != null) {
                err.println("steptrace: nothing could be loaded: " + report.storeProblem());
                return Main.FAILED;
            }
            if (!report.anyUsable()) {
                err.println("steptrace: no usable trace in " + paths
                        + " (looked for Kineto JSON traces, plain or gzip, with a \"traceEvents\" list,"
                    + " and Nsight Systems exports: SQLite, Parquet directory, Arrow stream)");
                return Main.FAILED;
            }
            out.flush();
            return Main.OK;
        }
    }

    /**
     * Analyses the captures the ingest changed into the store's analysis tables, so the next report of
     * each is written at once (its analysis is most of a report's time). A capture that cannot be
     * analysed is a warning, not a failed ingest: its report will say why.
     */
    private static List<String> prepareReports(Store store, IngestReport report, boolean quiet) {
        try (Progress p = Progress.startTimer(quiet, "analysing the captures loaded, for their reports")) {
            Steptrace.of(store).prepareReports(report);
            return List.of();
        } catch (SteptraceException e) {
            String outOfStoreMemory = Store.outOfMemory(e);
            return List.of("the report of a capture could not be prepared: " + (outOfStoreMemory != null ? outOfStoreMemory
                    : Store.diskFull(e) ? "the disk of the store " + store.path() + " is full" : e.getMessage()));
        }
    }

    /** Ingests through the API with a progress line on a terminal. */
    /** A usage error unless the count an option gives, when given, is 1 or more. */
    static void atLeastOne(CommandLine cl, String option, Integer value) {
        if (value != null && value < 1) {
            throw new CommandLine.ParameterException(cl, option + " must be 1 or more, not " + value);
        }
    }

    static IngestReport run(Store store, IngestOptions options, List<Path> paths, boolean quiet) {
        return Steptrace.of(store).ingest(paths, options, listener(quiet, null));
    }

    /**
     * What the commands show while they ingest: progress on stderr (unless quiet) and, when
     * {@code problems} is given, each skipped or partial file and each warning once the ingest is done.
     */
    static IngestListener listener(boolean quiet, PrintWriter problems) {
        return new IngestListener() {
            @Override
            public AutoCloseable started(IngestProgress p) {
                return Progress.start(quiet, "ingest", p.bytesRead(), p.bytesToRead(), p.jsonBytesRead(), p.events());
            }

            @Override
            public void finished(IngestReport report) {
                if (problems == null) {
                    return;
                }
                report.files().stream().filter(f -> f.reason() != null).forEach(f -> problems.println(
                        "steptrace: " + f.status().id() + ": " + f.path() + ": " + f.reason()));
                report.warnings().forEach(w -> problems.println("steptrace: warning: " + w));
            }
        };
    }

    private static void printSummary(PrintWriter out, IngestReport report, Path db) {
        out.printf(Locale.ROOT, "%-5s %-9s %9s %7s %7s %8s %8s %11s  %s%n",
                "rank", "status", "kernels", "memcpy", "memset", "runtime", "cpu_ops", "annotations", "file");
        long json = 0;
        double seconds = 0;
        int loaded = 0;
        for (FileOutcome f : report.files()) {
            var c = f.counts();
            out.printf(Locale.ROOT, "%-5s %-9s %9d %7d %7d %8d %8d %11d  %s%n",
                    f.rank() == null ? "-" : f.rank().toString(), f.status().id(), c.get("kernel"),
                    c.get("memcpy"), c.get("memset"), c.get("runtime"), c.get("cpu_op"), c.get("annotation"),
                    (f.capture() != null ? f.capture() : f.path().getParent().getFileName()) + "/" + f.path().getFileName());
            if (f.status() == FileOutcome.Status.INGESTED || f.status() == FileOutcome.Status.PARTIAL) {
                json += f.jsonBytes();
                seconds = Math.max(seconds, f.seconds());
                loaded++;
            }
        }
        if (loaded > 0) {
            out.printf(Locale.ROOT, "loaded %d file(s), %s of trace data, into %s%n", loaded, Fmt.size(json), db);
        } else if (report.files().stream().noneMatch(f -> f.status() == FileOutcome.Status.FAILED)) {
            // Rows removed are a change to the store: "up to date" would say it found nothing to do.
            if (report.filesRemoved() > 0) {
                out.printf(Locale.ROOT, "nothing to load; removed the rows of %d file(s) no longer on disk, no longer"
                        + " traces or now copies from %s%n", report.filesRemoved(), db);
            } else if (report.anyUsable()) {
                out.printf(Locale.ROOT, "nothing to load: the store %s is up to date%n", db);
            }
        }
    }

    static String toJson(IngestReport report) throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        ArrayNode files = root.putArray("files");
        for (FileOutcome f : report.files()) {
            ObjectNode o = files.addObject();
            o.put("path", f.path().toString());
            if (f.capture() == null) {
                o.putNull("capture");
            } else {
                o.put("capture", f.capture());
            }
            if (f.rank() == null) {
                o.putNull("rank");
            } else {
                o.put("rank", f.rank());
            }
            o.put("status", f.status().id());
            if (f.reason() == null) {
                o.putNull("reason");
            } else {
                o.put("reason", f.reason());
            }
            if (f.copyOf() == null) {
                o.putNull("copy_of");
            } else {
                o.put("copy_of", f.copyOf().toString());
            }
            ObjectNode counts = o.putObject("counts");
            f.counts().forEach(counts::put);
        }
        ArrayNode warnings = root.putArray("warnings");
        report.warnings().forEach(warnings::add);
        return mapper.writeValueAsString(root);
    }
}
