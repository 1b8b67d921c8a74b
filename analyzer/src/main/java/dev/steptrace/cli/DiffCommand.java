package dev.steptrace.cli;

import dev.steptrace.common.InputException;
import dev.steptrace.report.Fmt;
import dev.steptrace.analysis.DiffBuilder;
import dev.steptrace.api.AnalysisOptions;
import dev.steptrace.api.Capture;
import dev.steptrace.api.CaptureInfo;
import dev.steptrace.api.Diff;
import dev.steptrace.api.Steptrace;
import dev.steptrace.api.SteptraceException;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.report.CaptureDiff.Verdict;
import dev.steptrace.report.CaptureDiff;
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

@Command(name = "diff", mixinStandardHelpOptions = true,
        description = {"Compare two captures (A the baseline, B the candidate) phase by phase.",
                "Time per step by kernel category with 95%% bootstrap intervals, a verdict, the kernels that "
                        + "moved, collectives, and warnings where the captures differ in structure. A and B are trace "
                        + "directories (ingested when needed) or captures already in the store (by path or name). Method: "
                        + "docs/diff.md."})
public final class DiffCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "A", description = "The baseline: a capture directory, or a capture in the store.")
    String a;

    @Parameters(index = "1", paramLabel = "B", description = "The capture to compare with A.")
    String b;

    @Mixin
    AnalysisArgs analysis;

    @Mixin
    DocumentOptions documents;

    /** Which verdicts fail a CI gate: {@code changed} is either direction. */
    enum FailOn { slower, faster, changed }

    @Option(names = "--fail-on", paramLabel = "VERDICT",
            description = "Exit 3 when the verdict of any phase is VERDICT: ${COMPLETION-CANDIDATES} (changed: slower or"
                    + " faster), after writing the outputs; exit 1 when no phase is in both (nothing compared); for"
                    + " regression gates in CI (docs/diff.md).")
    FailOn failOn;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + DiffBuilder.DEFAULT_SEED,
            description = "Seed of the bootstrap resampling (default: ${DEFAULT-VALUE}); same inputs and seed, same output.")
    long seed;

    @Mixin
    CommonOptions common;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        AnalysisOptions options = analysis.options();
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Steptrace st = Steptrace.openOrCreate(Store.resolve(common.db))) {
            CaptureInfo infoA = resolve(st, a, "A", err);
            CaptureInfo infoB = resolve(st, b, "B", err);
            try (Capture captureA = Progress.analysed(st, infoA.id(), options, common.quiet);
                 Capture captureB = Progress.analysed(st, infoB.id(), options, common.quiet)) {
                Diff diff = Steptrace.diff(captureA, captureB, seed);
                Path dir = documents.dir(infoA.name() + "-vs-" + infoB.name(), 1);
                List<Path> written = diff.write(dir, documents.templates, documents.wants(DocumentOptions.Format.json),
                        documents.wants(DocumentOptions.Format.html), documents.wants(DocumentOptions.Format.md));
                for (Path p : written) {
                    stdout.println(p);
                }
                if (failOn != null && diff.model().phases().isEmpty()) {
                    // A gate that compared nothing has not passed.
                    stdout.flush();
                    err.println("steptrace: diff --fail-on " + failOn + ": nothing was compared: A has "
                            + phases(diff.model().a()) + ", B has " + phases(diff.model().b()) + ", no phase in both");
                    err.flush();
                    return Main.FAILED;
                }
                List<String> matched = matched(diff.model());
                if (!matched.isEmpty()) {
                    stdout.flush();
                    err.println("steptrace: diff --fail-on " + failOn + ": " + String.join(", ", matched));
                    err.flush();
                    return Main.VERDICT_MATCHED;
                }
            }
        }
        stdout.flush();
        return Main.OK;
    }

    private static String phases(CaptureDiff.Side side) {
        return side.steps().isEmpty() ? "no steps" : "steps of " + String.join(", ", side.steps().keySet()) + " only";
    }

    /** "decode is slower (kernel time +1.23 ms per step)" for each phase whose verdict --fail-on names. */
    private List<String> matched(CaptureDiff model) {
        List<String> out = new ArrayList<>();
        if (failOn == null) {
            return out;
        }
        model.phases().forEach((phase, d) -> {
            boolean hit = switch (failOn) {
                case slower -> d.verdict() == Verdict.SLOWER;
                case faster -> d.verdict() == Verdict.FASTER;
                case changed -> d.verdict() != Verdict.NO_SIGNIFICANT_CHANGE;
            };
            if (hit) {
                Double delta = d.kernelMsPerStep().deltaMs();
                out.add(phase + " is " + d.verdict() + (delta == null ? ""
                        : " (kernel time " + Fmt.signedMs(delta) + " ms per step)"));
            }
        });
        return out;
    }

    /**
     * A path on disk is ingested (a no-op when unchanged) and must hold one capture; anything else is
     * looked up in the store, by capture path, then by capture name ({@link Steptrace#resolve}). A
     * problem is reported with the side it concerns ("B: ...").
     */
    private CaptureInfo resolve(Steptrace st, String arg, String which, PrintWriter err) {
        try {
            return st.resolve(arg, IngestOptions.defaults(), IngestCommand.listener(common.quiet, err));
        } catch (SteptraceException e) {
            if (!e.userError()) {
                throw e;
            }
            throw new InputException(which + ": " + e.getMessage(), e);
        }
    }
}
