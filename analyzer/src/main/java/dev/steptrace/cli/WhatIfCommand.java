package dev.steptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.steptrace.common.InputException;
import dev.steptrace.api.Capture;
import dev.steptrace.api.CaptureInfo;
import dev.steptrace.api.Steptrace;
import dev.steptrace.common.Phase;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.report.Fmt;
import dev.steptrace.store.Store;
import dev.steptrace.whatif.Changes;
import dev.steptrace.whatif.WhatIf;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "whatif", mixinStandardHelpOptions = true,
        description = {"Project the step time of a capture under changed durations, beside Amdahl's bound.",
                "Its steps are replayed as a graph of their dependencies (CPU calls, launches, kernels in stream "
                        + "order, host syncs, collectives that end when their last rank arrives), as captured and as "
                        + "changed. Prints, per phase, the step time, the projected step time, Amdahl's bound (the step "
                        + "less all the time the change removes) and the critical paths before and after. Method: "
                        + "docs/whatif.md."})
public final class WhatIfCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "CAPTURE",
            description = "A capture directory (ingested when needed), or a capture in the store (path or name).")
    String capture;

    @Option(names = "--phase", paramLabel = "PHASE", description = "One phase: decode, prefill, mixed or unknown (default: all).")
    String phase;

    @Option(names = "--scale", paramLabel = "CATEGORY[/SUB]=F",
            description = "Multiply the durations of a category's (or subcategory's) kernels by F (0 removes them);"
                    + " a collective's transfer. Repeatable.")
    List<String> scale = new ArrayList<>();

    @Option(names = "--scale-kernels", paramLabel = "REGEX=F",
            description = "Multiply the durations of the kernels whose names match REGEX by F. Repeatable.")
    List<String> scaleKernels = new ArrayList<>();

    @Option(names = "--busbw", paramLabel = "COLLECTIVE=GBPS",
            description = "Re-time a collective type's transfers (allreduce, all_gather, ...) at this bus bandwidth"
                    + " from their message sizes; waits follow. Repeatable.")
    List<String> busbw = new ArrayList<>();

    @Option(names = "--launch-overhead", paramLabel = "US",
            description = "The CPU cost of each launch in a run of launches, as if the step were captured as a CUDA"
                    + " graph (0, or a replay's cost per kernel).")
    Double launchOverheadUs;

    @Option(names = "--no-straggler", description = "Every rank's own work at the fastest rank's pace.")
    boolean noStraggler;

    @Option(names = "--cpu-scale", paramLabel = "F", defaultValue = "1",
            description = "Multiply the CPU work between calls by F (default: ${DEFAULT-VALUE}).")
    double cpuScale;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text or json (default: ${DEFAULT-VALUE}).")
    String format;

    @Mixin
    AnalysisArgs analysis;

    @Mixin
    CommonOptions common;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        Changes changes = changes(cl);
        if (!format.equals("text") && !format.equals("json")) {
            throw new CommandLine.ParameterException(cl, "--format must be text or json, not " + format);
        }
        PrintWriter out = cl.getOut();
        PrintWriter err = cl.getErr();
        try (Steptrace st = Steptrace.openOrCreate(Store.resolve(common.db))) {
            CaptureInfo info = st.resolve(capture, IngestOptions.defaults(), IngestCommand.listener(common.quiet, err));
            List<WhatIf.PhaseProjection> phases;
            try (Capture c = Progress.analysed(st, info.id(), analysis.options(), common.quiet)) {
                if (phase != null && !c.phases().contains(phase)) {
                    throw new InputException(info.name() + " has no " + phase + " steps (phases: " + String.join(", ", c.phases()) + ")");
                }
                phases = c.whatIf(changes, phase);
            }
            if (format.equals("json")) {
                out.println(json(info.name(), changes, phases));
            } else {
                text(out, info.name(), changes, phases);
            }
        }
        out.flush();
        return Main.OK;
    }

    private Changes changes(CommandLine cl) {
        try {
            if (phase != null && !Phase.IDS.contains(phase)) {
                throw new IllegalArgumentException("--phase must be one of " + Phase.IDS + ", not " + phase);
            }
            Map<String, Double> byCategory = new LinkedHashMap<>();
            for (String s : scale) {
                Map.Entry<String, Double> e = Changes.keyValue("--scale", s);
                String category = e.getKey().contains("/") ? e.getKey().substring(0, e.getKey().indexOf('/')) : e.getKey();
                if (dev.steptrace.classify.Category.ofId(category).isEmpty()) {
                    throw new IllegalArgumentException("--scale: unknown category " + category + " (categories: "
                            + dev.steptrace.classify.Category.ids() + ")");
                }
                byCategory.put(e.getKey(), e.getValue());
            }
            Map<Pattern, Double> byName = new LinkedHashMap<>();
            for (String s : scaleKernels) {
                Map.Entry<String, Double> e = Changes.keyValue("--scale-kernels", s);
                byName.put(Changes.pattern(e.getKey()), e.getValue());
            }
            Map<String, Double> bw = new LinkedHashMap<>();
            for (String s : busbw) {
                Map.Entry<String, Double> e = Changes.keyValue("--busbw", s);
                if (e.getValue() <= 0) {
                    throw new IllegalArgumentException("--busbw: " + s + ": the bandwidth must be above 0");
                }
                bw.put(e.getKey(), e.getValue());
            }
            if (launchOverheadUs != null && !(launchOverheadUs >= 0)) {
                throw new IllegalArgumentException("--launch-overhead must be at least 0 µs");
            }
            if (!(cpuScale >= 0) || Double.isInfinite(cpuScale)) {
                throw new IllegalArgumentException("--cpu-scale must be a number at least 0");
            }
            return new Changes(byCategory, byName, bw, launchOverheadUs, noStraggler, cpuScale);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
    }

    /** whatif.json (docs/whatif.schema.json). */
    static String json(String capture, Changes changes, List<WhatIf.PhaseProjection> phases) throws Exception {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("schema", "steptrace.whatif/1");
        root.put("capture", capture);
        root.put("changes", changes.describe());
        Map<String, Object> byPhase = new LinkedHashMap<>();
        for (WhatIf.PhaseProjection p : phases) {
            byPhase.put(p.phase(), p);
        }
        root.put("phases", byPhase);
        return new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root);
    }

    private static void text(PrintWriter out, String capture, Changes changes, List<WhatIf.PhaseProjection> phases) {
        out.println("what if: " + dev.steptrace.common.Messages.printable(capture)
                + (changes.isEmpty() ? " (no change)" : ", " + String.join(" ", changes.describe())));
        for (WhatIf.PhaseProjection p : phases) {
            out.println();
            out.println(Phase.labelOf(p.phase()) + ": " + Fmt.count(p.steps()) + " steps per rank");
            out.println("  step time          " + Fmt.ms(p.stepMs()) + " ms (replayed as captured: " + Fmt.ms(p.replayedStepMs()) + " ms)");
            out.println("  projected          " + Fmt.ms(p.projectedStepMs()) + " ms (" + signedPct(p.projectedStepMs(), p.replayedStepMs()) + ")");
            out.println("  Amdahl's bound     " + Fmt.ms(p.amdahlStepMs()) + " ms (" + signedPct(p.amdahlStepMs(), p.stepMs()) + ")");
            if (!changes.isEmpty()) {
                out.println("  " + p.difference());
            }
            out.println("  critical path, as captured | as projected (ms per step):");
            Map<String, Double> after = new LinkedHashMap<>();
            p.projectedCriticalPath().forEach(s -> after.put(s.part() + "@" + s.rank(), s.msPerStep()));
            int shown = 0;
            for (WhatIf.PathShare s : p.criticalPath()) {
                if (shown++ == 10) {
                    break;
                }
                out.printf(java.util.Locale.ROOT, "    %-30s rank %-3d %9s | %9s%n", s.label(), s.rank(), Fmt.ms(s.msPerStep()),
                        Fmt.ms(after.getOrDefault(s.part() + "@" + s.rank(), 0.0)));
            }
        }
    }

    private static String signedPct(double x, double base) {
        return base > 0 ? String.format(java.util.Locale.ROOT, "%+.1f%%", 100 * (x - base) / base) : Fmt.NA;
    }
}
