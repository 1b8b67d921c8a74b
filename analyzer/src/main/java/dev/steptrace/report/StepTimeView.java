package dev.steptrace.report;

import dev.steptrace.common.PathPart;
import dev.steptrace.common.StepPart;
import dev.steptrace.report.BottleneckReport.HostSync;
import dev.steptrace.report.BottleneckReport.IdleCpuOp;
import dev.steptrace.report.BottleneckReport.PartShare;
import dev.steptrace.report.BottleneckReport.RankPhase;
import dev.steptrace.report.BottleneckReport.RankStepTime;
import dev.steptrace.report.BottleneckReport.RankSummary;
import dev.steptrace.report.BottleneckReport.StepTime;
import java.awt.Color;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One phase's step time as the templates show it first (docs/reports.md, "Step time"): the step time, the
 * finding, the parts (mean over ranks) beside the pace rank's own, each rank's step time split into work,
 * exposed communication, waits and idle time, the critical path's parts, and the CPU side of idle time.
 *
 * @param pathNote  what the critical path says that the parts do not: how much of it is the GPU's kernels
 * @param paceShown whether the pace rank's column adds anything (several ranks)
 * @param biggest   the largest part's label and share, for the first line
 */
public record StepTimeView(String ms, String median, String p90, String paceRank, String paceReason, boolean paceShown,
                           String finding, String biggest, List<PartRow> parts, PartRow total, String launches,
                           String graphLaunches, String hidden, List<RankRow> ranks, List<PathRow> path,
                           String pathNote, List<SyncRow> syncs, List<CpuOpRow> cpuOps) {

    /** A part of the critical path: its time and share of the step, mean over ranks. */
    public record PathRow(String id, String label, String color, String ms, String share) {}

    /** A part: its time and share, mean over ranks, and the pace rank's ({@code n/a}: not shown). */
    public record PartRow(String id, String label, String kind, String color, String ms, String share, String paceMs,
                          String paceShare) {}

    /** One rank: step time, and its work, exposed communication, collective waits and idle time per step. */
    public record RankRow(String rank, boolean pace, String ms, String work, String comm, String waiting, String idle,
                          String idleShare) {}

    public record SyncRow(String call, String op, String calls, String callMs, String idleMs) {}

    public record CpuOpRow(String name, String kind, String idleMs, String calls) {}

    /** Null when the phase has no step time. */
    static StepTimeView of(String phase, StepTime t, List<RankSummary> rankSummaries) {
        if (t == null) {
            return null;
        }
        Map<String, PartShare> pace = new LinkedHashMap<>();
        t.paceParts().forEach(p -> pace.put(p.name(), p));
        boolean paceShown = rankSummaries != null && rankSummaries.stream()
                .filter(r -> r.phases() != null && r.phases().get(phase) != null).count() > 1;
        List<PartRow> parts = new ArrayList<>();
        for (PartShare p : t.parts()) {
            PartShare own = pace.get(p.name());
            parts.add(new PartRow(Fmt.text(p.name()), Fmt.text(p.label()), kind(p.name()), color(p.name()),
                    Fmt.ms(p.msPerStep()), Fmt.pct(p.sharePct()),
                    paceShown ? Fmt.ms(own == null ? 0.0 : own.msPerStep()) : Fmt.NA,
                    paceShown ? Fmt.pct(own == null ? 0.0 : own.sharePct()) : Fmt.NA));
        }
        double paceTotal = t.paceParts().stream().mapToDouble(PartShare::msPerStep).sum();
        PartRow total = new PartRow("total", "Step time", "", "", Fmt.ms(t.msPerStep()), Fmt.pct(100.0),
                paceShown ? Fmt.ms(paceTotal) : Fmt.NA, paceShown ? Fmt.pct(100.0) : Fmt.NA);
        String biggest = t.parts().isEmpty() ? Fmt.NA
                : Fmt.text(t.parts().get(0).label()) + " (" + Fmt.pct(t.parts().get(0).sharePct()) + ")";
        List<SyncRow> syncs = new ArrayList<>();
        for (HostSync s : t.hostSyncs()) {
            syncs.add(new SyncRow(Fmt.text(s.call()), s.op() == null ? "unknown" : Fmt.text(s.op()),
                    Fmt.count(s.callsPerStep()), Fmt.ms(s.callMsPerStep()), Fmt.ms(s.idleMsPerStep())));
        }
        List<CpuOpRow> ops = new ArrayList<>();
        for (IdleCpuOp o : t.idleCpuOps()) {
            ops.add(new CpuOpRow(Fmt.text(o.name()), Fmt.text(o.kind()), Fmt.ms(o.idleMsPerStep()), Fmt.count(o.callsPerStep())));
        }
        return new StepTimeView(Fmt.ms(t.msPerStep()), Fmt.ms(t.stepMs() == null ? null : t.stepMs().median()),
                Fmt.ms(t.stepMs() == null ? null : t.stepMs().p90()),
                t.paceRank() == null ? Fmt.NA : t.paceRank().toString(), Fmt.text(t.paceReason()), paceShown,
                Fmt.text(t.finding()), biggest, parts, total, Fmt.count(t.launchesPerStep()),
                Fmt.count(t.graphLaunchesPerStep()), Fmt.ms(t.commHiddenMsPerStep()),
                ranks(phase, t.paceRank(), rankSummaries), path(t.criticalPath()), pathNote(t), syncs, ops);
    }

    private static List<PathRow> path(List<PartShare> parts) {
        List<PathRow> rows = new ArrayList<>();
        for (PartShare p : parts) {
            rows.add(new PathRow(Fmt.text(p.name()), Fmt.text(p.label()), pathColor(p.name()), Fmt.ms(p.msPerStep()),
                    Fmt.pct(p.sharePct())));
        }
        return rows;
    }

    /**
     * The critical path's split between the GPU's own work (kernels and transfers), waiting for other ranks, and
     * the CPU's side (its work, launches, host syncs, gaps): what speeding up kernels can save at most.
     */
    private static String pathNote(StepTime t) {
        if (t.criticalPath().isEmpty()) {
            return null;
        }
        double gpu = 0;
        double wait = 0;
        double rest = 0;
        for (PartShare p : t.criticalPath()) {
            PathPart part = PathPart.of(p.name()).orElse(PathPart.UNTRACKED);
            if (part == PathPart.COMM_WAIT) {
                wait += p.sharePct();
            } else if (part.onGpu()) {
                gpu += p.sharePct();
            } else {
                rest += p.sharePct();
            }
        }
        return "Kernels and transfers make " + Fmt.pct(gpu) + " of the critical path, waiting for other ranks "
                + Fmt.pct(wait) + ", the CPU side (its work, launches, host syncs) and gaps " + Fmt.pct(rest)
                + ": making kernels faster shortens the step by at most their share.";
    }

    /** A critical-path part's color: a kernel category's, communication's and waiting as in the parts, the CPU's greys. */
    private static String pathColor(String part) {
        return switch (PathPart.of(part).orElse(PathPart.UNTRACKED)) {
            case CPU -> "#8c8c8c";
            case LAUNCH -> "#b0b0b0";
            case SYNC -> "#9edae5";
            case GAP -> "#dadada";
            case UNTRACKED -> "#f2f2f2";
            default -> color(part);
        };
    }

    private static List<RankRow> ranks(String phase, Integer paceRank, List<RankSummary> rankSummaries) {
        List<RankRow> rows = new ArrayList<>();
        List<RankSummary> ranks = new ArrayList<>(rankSummaries == null ? List.of() : rankSummaries);
        ranks.sort(Comparator.comparingInt(RankSummary::rank));
        for (RankSummary rs : ranks) {
            RankPhase rp = rs.phases() == null ? null : rs.phases().get(phase);
            RankStepTime st = rp == null ? null : rp.stepTime();
            if (st == null) {
                continue;
            }
            double[] byKind = new double[4]; // work, comm, wait, idle
            for (PartShare p : st.parts()) {
                byKind[slot(p.name())] += p.msPerStep();
            }
            double ms = st.msPerStep().mean() == null ? 0 : st.msPerStep().mean();
            rows.add(new RankRow(Integer.toString(rs.rank()), paceRank != null && paceRank == rs.rank(), Fmt.ms(ms),
                    Fmt.ms(byKind[0]), Fmt.ms(byKind[1]), Fmt.ms(byKind[2]), Fmt.ms(byKind[3]),
                    Fmt.pct(ms > 0 ? 100 * byKind[3] / ms : null)));
        }
        return rows;
    }

    private static int slot(String part) {
        StepPart p = StepPart.of(part).orElse(StepPart.OTHER);
        return switch (p.kind()) {
            case WORK -> 0;
            case COMM -> p == StepPart.COMM_WAIT ? 2 : 1;
            case IDLE -> 3;
        };
    }

    private static String kind(String part) {
        return StepPart.of(part).map(p -> p.kind().name().toLowerCase(java.util.Locale.ROOT)).orElse("work");
    }

    /**
     * A part's color, the same in tables and charts: a kernel category's own, communication the color of its
     * category, waiting a light red, idle time shades of light gray.
     */
    public static String color(String part) {
        return switch (StepPart.of(part).orElse(StepPart.OTHER)) {
            case COMM_ALLREDUCE -> ReportCategories.color("allreduce");
            case COMM_OTHER -> ReportCategories.color("comm_other");
            case COMM_WAIT -> "#ff9896";
            case IDLE_LAUNCH -> "#c7c7c7";
            case IDLE_SYNC -> "#9edae5";
            case IDLE_BEFORE -> "#dadada";
            case IDLE_AFTER -> "#e8e8e8";
            case IDLE_OTHER -> "#f2f2f2";
            default -> ReportCategories.color(part);
        };
    }

    public static Color awtColor(String part) {
        return Color.decode(color(part));
    }
}
