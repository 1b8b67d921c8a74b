package dev.steptrace.cli;

import dev.steptrace.report.Fmt;
import dev.steptrace.api.AnalysisOptions;
import dev.steptrace.api.Capture;
import dev.steptrace.api.CaptureInfo;
import dev.steptrace.api.Steptrace;
import dev.steptrace.common.Messages;
import dev.steptrace.common.OutputFiles;
import dev.steptrace.common.Phase;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.store.Store;
import dev.steptrace.timeline.ClockAlignment;
import dev.steptrace.timeline.TimelineOptions;
import dev.steptrace.timeline.TimelineResult;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

@Command(name = "timeline", mixinStandardHelpOptions = true,
        description = {"Write a few steps of every rank as one Chrome trace file, to open in Perfetto.",
                "The file (.json.gz) opens in ui.perfetto.dev, or chrome://tracing: one process per rank, one thread per GPU "
                        + "stream, kernels named and coloured by category, collectives split into wait and transfer with "
                        + "arrows joining each instance across ranks, the step's analysed numbers on its own slice. Rank "
                        + "clocks are aligned on collective end times. Read from the store, never from the trace files. "
                        + "Default: the slowest decode step and its neighbours. Format: docs/timeline.md."})
public final class TimelineCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "CAPTURE",
            description = "A capture directory (ingested when needed), or a capture in the store (path or name).")
    String capture;

    @Option(names = "--phase", paramLabel = "PHASE",
            description = "The steps' phase: decode, prefill, mixed or unknown (default: decode, else the first with steps).")
    String phase;

    @Option(names = "--steps", paramLabel = "SPEC",
            description = "Steps by position in the phase, as the report numbers them: 37, 35-39 or 1,4,9"
                    + " (default: the slowest and its neighbours).")
    String steps;

    @Option(names = "--ranks", paramLabel = "SPEC", description = "Ranks to write: 0-3 or 1,5 (default: all).")
    String ranks;

    @Option(names = "--align", paramLabel = "HOW", defaultValue = "collectives",
            description = "Clock alignment: collectives (offsets from collective end times) or none (default: ${DEFAULT-VALUE}).")
    String align;

    @Option(names = "--out", paramLabel = "FILE",
            description = "The file, or a directory for the default name (default: steptrace-out/<capture>/"
                    + "timeline-<phase>-<steps>.json.gz); plain JSON if the name ends in .json.")
    Path out;

    @Mixin
    AnalysisArgs analysis;

    @Mixin
    CommonOptions common;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        TimelineOptions options = options();
        AnalysisOptions analysisOptions = analysis.options();
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Steptrace st = Steptrace.openOrCreate(Store.resolve(common.db))) {
            CaptureInfo info = st.resolve(capture, IngestOptions.defaults(), IngestCommand.listener(common.quiet, err));
            TimelineResult result;
            try (Capture c = Progress.analysed(st, info.id(), analysisOptions, common.quiet)) {
                if (out == null || Files.isDirectory(out)) {
                    result = c.writeTimeline(out == null ? Path.of(OutputFiles.DEFAULT_DIR, OutputFiles.folderName(info.name())) : out, options);
                } else {
                    result = c.writeTimeline(out.toAbsolutePath().getParent(), out.getFileName().toString(), options);
                }
            }
            stdout.println(result.file());
            stdout.flush();
            for (String line : summary(result, info.name())) {
                if (!common.quiet) {
                    err.println("steptrace: " + line);
                }
            }
            for (String warning : result.alignment().warnings()) {
                err.println("steptrace: warning: " + Messages.printable(warning));
            }
        }
        err.flush();
        return Main.OK;
    }

    private TimelineOptions options() {
        CommandLine cl = spec.commandLine();
        if (phase != null && !Phase.IDS.contains(phase)) {
            throw new CommandLine.ParameterException(cl, "--phase must be one of " + Phase.IDS + ", not " + phase);
        }
        TimelineOptions.Alignment alignment = switch (align) {
            case "collectives" -> TimelineOptions.Alignment.COLLECTIVES;
            case "none" -> TimelineOptions.Alignment.NONE;
            default -> throw new CommandLine.ParameterException(cl, "--align must be collectives or none, not " + align);
        };
        return new TimelineOptions(phase, numbers(cl, "--steps", steps), true, numbers(cl, "--ranks", ranks), alignment);
    }

    private static List<Integer> numbers(CommandLine cl, String option, String text) {
        if (text == null) {
            return null;
        }
        try {
            return NumberList.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, option + ": " + e.getMessage());
        }
    }

    /** What was written and how the clocks were aligned, for stderr. */
    static List<String> summary(TimelineResult r, String captureName) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "timeline of %s: %s step%s %s (slowest %s step: %d, %s ms on rank %d),"
                        + " rank%s %s: %,d events, %s", Messages.printable(captureName), r.phase(),
                r.steps().size() == 1 ? "" : "s", Messages.ranges(r.steps()), r.phase(), r.slowestStep(),
                Fmt.ms(r.slowestSpanNs() / 1e6), r.slowestRank(), r.ranks().size() == 1 ? "" : "s", Messages.ranges(r.ranks()),
                r.events(), Fmt.size(r.bytes())));
        ClockAlignment a = r.alignment();
        if (a.referenceRank() == null) {
            lines.add("clocks not aligned" + (a.note() != null ? ": " + a.note() : " (--align none)"));
        } else {
            List<String> offsets = new ArrayList<>();
            for (ClockAlignment.RankOffset o : a.ranks()) {
                offsets.add("rank " + o.rank() + " " + Fmt.signedUs(o.offsetNs() / 1e3) + " µs (" + o.instances()
                        + " instances)");
            }
            lines.add("clocks aligned on collective end times, to rank " + a.referenceRank() + "'s; offsets subtracted: "
                    + String.join(", ", offsets));
        }
        return lines;
    }
}
