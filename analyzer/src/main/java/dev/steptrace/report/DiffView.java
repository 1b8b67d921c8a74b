package dev.steptrace.report;

import dev.steptrace.common.Phase;
import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.CaptureDiff.CallsDelta;
import dev.steptrace.report.CaptureDiff.CategoryDelta;
import dev.steptrace.report.CaptureDiff.CollectiveDelta;
import dev.steptrace.report.CaptureDiff.CollectiveSide;
import dev.steptrace.report.CaptureDiff.Delta;
import dev.steptrace.report.CaptureDiff.KernelDelta;
import dev.steptrace.report.CaptureDiff.MsPerStepDelta;
import dev.steptrace.report.CaptureDiff.PhaseDiff;
import dev.steptrace.report.CaptureDiff.Side;
import dev.steptrace.report.CaptureDiff.SubcategoryDelta;
import dev.steptrace.report.CaptureDiff.Verdict;
import dev.steptrace.report.ReportView.ChartRef;
import dev.steptrace.report.ReportView.KernelName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The diff templates' data model ({@code view}): the {@link CaptureDiff} in reading order, numbers
 * formatted (ms with three decimals, changes signed, {@value Fmt#NA} for missing values), strings
 * never null. Text is raw; the templates' output formats escape it. Templates also get the raw model
 * as {@code diff}.
 */
public record DiffView(String title, String toolName, String toolVersion, String schema, String aName, String bName,
                       String summary, List<PhaseView> phases, List<WarningRow> warnings, List<FactRow> captures,
                       List<String> method, List<KernelName> longNames, String chartsNote) {

    /** One phase. {@code verdictClass} is faster, slower or same (for styling). */
    public record PhaseView(String id, String label, String anchor, String verdict, String verdictLabel,
                            String verdictClass, String stepsA, String stepsB, List<DeltaRow> headline,
                            List<DeltaRow> parts, String stepNote, List<DeltaRow> categories, List<KernelRow> kernels, List<CollectiveRow> collectives,
                            String significantCount, ChartRef barsChart, ChartRef deltasChart) {}

    /**
     * A quantity in A and B with its change: {@code mark} is "faster", "slower" or "" (not significant);
     * {@code subcategories} only on category rows.
     */
    public record DeltaRow(String id, String label, String color, String a, String b, String delta, String pct,
                           String ci, String floor, boolean significant, String mark, String callsA, String callsB,
                           List<DeltaRow> subcategories) {}

    /**
     * A kernel mover: its class, {@code change} (added, removed or ""), its time and calls per step, and
     * {@code otherNames}, further spellings.
     */
    public record KernelRow(KernelName name, KernelClass category, String change, TimeChange time, CallsChange calls,
                            List<String> otherNames) {}

    /** A kernel's category ({@code id}, {@code label}, its chart {@code color}) and subcategory. */
    public record KernelClass(String id, String label, String color, String subcategory) {}

    /**
     * Ms per step in A and B, the change, its percentage and interval; {@code mark} is "faster", "slower" or ""
     * (not significant).
     */
    public record TimeChange(String a, String b, String delta, String pct, String ci, boolean significant, String mark) {}

    /** Calls per step in A and B, the change ({@code changed}: by half a call or more), the mean µs of a call. */
    public record CallsChange(String a, String b, String delta, boolean changed, String meanUsA, String meanUsB) {}

    public record CollectiveRow(String type, String callsA, String callsB, String meanUsA, String meanUsB,
                                String deltaMeanUs, String deltaMeanPct, String busbwA, String busbwB,
                                String waitA, String waitB, String transferA, String transferB, String deltaWait,
                                String deltaTransfer) {}

    public record WarningRow(String code, String message) {}

    /** A capture fact side by side; {@code differs} when A and B disagree. */
    public record FactRow(String label, String a, String b, boolean differs, boolean code) {}

    public static DiffView of(CaptureDiff d, Map<String, ChartRef> charts, String chartsNote) {
        Names names = new Names();
        List<PhaseView> phases = new ArrayList<>();
        List<String> summary = new ArrayList<>();
        for (Map.Entry<String, PhaseDiff> e : d.phases().entrySet()) {
            PhaseView pv = phase(e.getKey(), e.getValue(), names, charts);
            phases.add(pv);
            Delta t = e.getValue().stepTime() == null ? null : e.getValue().stepTime().change();
            Delta k = t != null && t.deltaMs() != null ? t : e.getValue().kernelMsPerStep();
            summary.add(pv.label() + ": " + pv.verdictLabel() + " (" + (k == t ? "step time " : "kernel time per step ")
                    + Fmt.signedMs(k.deltaMs()) + " ms, " + Fmt.signedPct(k.deltaPct()) + ")");
        }
        List<WarningRow> warnings = new ArrayList<>();
        for (Warning w : nullSafe(d.warnings())) {
            warnings.add(new WarningRow(Fmt.text(w.code()), Fmt.text(w.message())));
        }
        for (Side s : List.of(d.a(), d.b())) {
            String which = s == d.a() ? "A" : "B";
            for (Warning w : nullSafe(s.warnings())) {
                warnings.add(new WarningRow(Fmt.text(w.code()), which + ": " + Fmt.text(w.message())));
            }
        }
        CaptureDiff.Method m = d.method();
        List<String> method = m == null ? List.of() : List.of(
                String.format(Locale.ROOT, "%d bootstrap resamples of the steps of each side (seed %d); each drawn step"
                        + " brings every rank's value; %s%% percentile interval of B − A.", m.resamples(), m.seed(),
                        Fmt.plain(100 * m.confidence())),
                String.format(Locale.ROOT, "Significant: the interval excludes zero and the change exceeds the noise floor:"
                        + " more than %s%% of the A value, more than %s%% of A's kernel time per step or else more than"
                        + " %s%% of the A value, and more than %s ms.", Fmt.plain(m.noiseFloorPct()),
                        Fmt.plain(m.noiseFloorStepPct()), Fmt.plain(m.noiseFloorSmallPct()), Fmt.plain(m.noiseFloorMinMs())),
                "Kernels are matched by normalized name: " + Fmt.text(m.kernelNames()) + ".");
        return new DiffView("steptrace diff: " + d.a().name() + " vs " + d.b().name(), d.tool().name(),
                d.tool().version(), d.schema(), Fmt.text(d.a().name()), Fmt.text(d.b().name()),
                summary.isEmpty() ? "No phase in common: nothing to compare." : String.join("; ", summary) + ".",
                phases, warnings, facts(d.a(), d.b()), method, names.longNames(), chartsNote == null ? "" : chartsNote);
    }

    private static PhaseView phase(String id, PhaseDiff p, Names names, Map<String, ChartRef> charts) {
        List<DeltaRow> headline = new ArrayList<>();
        List<DeltaRow> parts = new ArrayList<>();
        String stepNote = "";
        if (p.stepTime() != null) {
            headline.add(row("step", "Step time (its start to the next step's start)", null, p.stepTime().change(),
                    null, null, List.of()));
            for (CaptureDiff.PartDelta x : nullSafe(p.stepTime().parts())) {
                parts.add(row(x.name(), Fmt.text(x.label()), StepTimeView.color(x.name()),
                        new Delta(x.aMsPerStep(), x.bMsPerStep(), x.deltaMs(), x.deltaPct(), x.ci95Ms(), x.noiseFloorMs(),
                                x.significant()), null, null, List.of()));
            }
            stepNote = stepNote(p.stepTime());
        }
        headline.add(row("kernel", "Kernel time per step", null, p.kernelMsPerStep(), null, null, List.of()));
        headline.add(row("span", "Span per step (first kernel start to last kernel end)", null, p.spanMsPerStep(), null,
                null, List.of()));
        List<DeltaRow> categories = new ArrayList<>();
        int significant = 0;
        for (CategoryDelta c : nullSafe(p.categories())) {
            List<DeltaRow> subs = new ArrayList<>();
            for (SubcategoryDelta s : nullSafe(c.subcategories())) {
                subs.add(row(s.id(), s.id(), ReportCategories.color(c.id()),
                        new Delta(s.aMsPerStep(), s.bMsPerStep(), s.deltaMs(), s.deltaPct(), s.ci95Ms(), s.noiseFloorMs(),
                                s.significant()), s.aCallsPerStep(), s.bCallsPerStep(), List.of()));
            }
            significant += c.significant() ? 1 : 0;
            categories.add(row(c.id(), ReportCategories.label(c.id(), c.label()), ReportCategories.color(c.id()),
                    new Delta(c.aMsPerStep(), c.bMsPerStep(), c.deltaMs(), c.deltaPct(), c.ci95Ms(), c.noiseFloorMs(),
                            c.significant()), c.aCallsPerStep(), c.bCallsPerStep(), subs));
        }
        List<KernelRow> kernels = new ArrayList<>();
        for (KernelDelta k : nullSafe(p.kernels())) {
            List<String> others = nullSafe(k.rawNames()).stream().filter(n -> !n.equals(k.name())).toList();
            MsPerStepDelta ms = k.time();
            CallsDelta calls = k.calls();
            kernels.add(new KernelRow(names.of(k.name()),
                    new KernelClass(Fmt.text(k.category()), ReportCategories.label(k.category(), k.category()),
                            ReportCategories.color(k.category()), Fmt.text(k.subcategory())),
                    "changed".equals(k.change()) ? "" : Fmt.text(k.change()),
                    new TimeChange(Fmt.fineMs(ms.aMsPerStep()), Fmt.fineMs(ms.bMsPerStep()), Fmt.signedMs(ms.deltaMs()),
                            Fmt.signedPct(ms.deltaPct()), Fmt.interval(ms.ci95Ms()), ms.significant(),
                            mark(ms.significant(), ms.deltaMs())),
                    new CallsChange(Fmt.count(calls.aCallsPerStep()), Fmt.count(calls.bCallsPerStep()),
                            Fmt.signedCount(calls.deltaCallsPerStep()), calls.callsChanged(), Fmt.us(calls.aMeanUs()),
                            Fmt.us(calls.bMeanUs())),
                    others));
        }
        List<CollectiveRow> collectives = new ArrayList<>();
        for (CollectiveDelta c : nullSafe(p.collectives())) {
            CollectiveSide a = c.a();
            CollectiveSide b = c.b();
            collectives.add(new CollectiveRow(Fmt.text(c.type()),
                    a == null ? Fmt.NA : Fmt.count(a.callsPerStep()), b == null ? Fmt.NA : Fmt.count(b.callsPerStep()),
                    a == null ? Fmt.NA : Fmt.us(a.meanUs()), b == null ? Fmt.NA : Fmt.us(b.meanUs()),
                    Fmt.signedUs(c.deltaMeanUs()), Fmt.signedPct(c.deltaMeanPct()),
                    a == null ? Fmt.NA : Fmt.gbps(a.busbwGbps()), b == null ? Fmt.NA : Fmt.gbps(b.busbwGbps()),
                    a == null ? Fmt.NA : Fmt.fineMs(a.waitMsPerStep()), b == null ? Fmt.NA : Fmt.fineMs(b.waitMsPerStep()),
                    a == null ? Fmt.NA : Fmt.fineMs(a.transferMsPerStep()), b == null ? Fmt.NA : Fmt.fineMs(b.transferMsPerStep()),
                    Fmt.signedMs(c.deltaWaitMsPerStep()), Fmt.signedMs(c.deltaTransferMsPerStep())));
        }
        String verdict = p.verdict().id();
        String verdictClass = p.verdict() == Verdict.NO_SIGNIFICANT_CHANGE ? "same" : verdict;
        return new PhaseView(id, Phase.labelOf(id), "phase-" + id.replaceAll("[^A-Za-z0-9_-]", "_"), verdict,
                p.verdict().label(), verdictClass, Fmt.count(p.stepsA()), Fmt.count(p.stepsB()), headline, parts,
                stepNote, categories,
                kernels, collectives, Integer.toString(significant),
                charts.get("diff-" + id + "-bars"), charts.get("diff-" + id + "-deltas"));
    }

    /** Who sets the pace and who straggles on each side, and the hidden share of communication, in a sentence. */
    private static String stepNote(CaptureDiff.StepTimeDiff t) {
        List<String> bits = new ArrayList<>();
        CaptureDiff.RankPair pace = t.paceRank();
        if (pace != null && pace.a() != null && pace.b() != null) {
            bits.add(pace.a().equals(pace.b()) ? "rank " + pace.a() + " sets the pace in both"
                    : "the rank that sets the pace moved from " + pace.a() + " to " + pace.b());
        }
        CaptureDiff.RankPair s = t.straggler();
        if (s != null && !Objects.equals(s.a(), s.b())) {
            bits.add(s.a() == null ? "rank " + s.b() + " became the straggler"
                    : s.b() == null ? "rank " + s.a() + " is no longer the straggler"
                    : "the straggler moved from rank " + s.a() + " to rank " + s.b());
        } else if (s != null && s.a() != null) {
            bits.add("rank " + s.a() + " is the straggler in both");
        }
        CaptureDiff.ValuePair h = t.commHiddenPct();
        if (h != null && h.a() != null && h.b() != null && Math.abs(h.a() - h.b()) >= 0.05) {
            bits.add("communication hidden under other work " + Fmt.pct(h.a()) + " → " + Fmt.pct(h.b()));
        }
        if (bits.isEmpty()) {
            return "";
        }
        String text = String.join("; ", bits) + ".";
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    private static DeltaRow row(String id, String label, String color, Delta d, Double callsA, Double callsB,
                                List<DeltaRow> subs) {
        return new DeltaRow(id, label, color == null ? "" : color, Fmt.fineMs(d.a()), Fmt.fineMs(d.b()), Fmt.signedMs(d.deltaMs()),
                Fmt.signedPct(d.deltaPct()), Fmt.interval(d.ci95Ms()), Fmt.fineMs(d.noiseFloorMs()), d.significant(),
                mark(d.significant(), d.deltaMs()), callsA == null ? Fmt.NA : Fmt.count(callsA),
                callsB == null ? Fmt.NA : Fmt.count(callsB), subs);
    }

    private static List<FactRow> facts(Side a, Side b) {
        List<FactRow> f = new ArrayList<>();
        fact(f, "Path", a.path(), b.path(), false, true);
        fact(f, "Format", a.format(), b.format(), true, false);
        fact(f, "Files", Integer.toString(a.files()), Integer.toString(b.files()), true, false);
        fact(f, "Ranks", Fmt.ranks(a.ranks()), Fmt.ranks(b.ranks()), true, false);
        fact(f, "World size", a.worldSize() == null ? Fmt.NA : a.worldSize().toString(),
                b.worldSize() == null ? Fmt.NA : b.worldSize().toString(), true, false);
        fact(f, "Devices", devices(a.devices()), devices(b.devices()), true, false);
        fact(f, "Steps from", StepSource.labelOf(a.stepSource()), StepSource.labelOf(b.stepSource()),
                true, false);
        Map<String, String[]> steps = new LinkedHashMap<>();
        for (String p : ReportView.orderedPhases(union(a.steps(), b.steps()))) {
            Double x = a.steps() == null ? null : a.steps().get(p);
            Double y = b.steps() == null ? null : b.steps().get(p);
            steps.put(p, new String[] {x == null ? "none" : Fmt.count(x), y == null ? "none" : Fmt.count(y)});
        }
        steps.forEach((p, v) -> fact(f, Phase.labelOf(p) + " steps per rank", v[0], v[1], false, false));
        int pa = a.partialFiles() == null ? 0 : a.partialFiles().size();
        int pb = b.partialFiles() == null ? 0 : b.partialFiles().size();
        fact(f, "Partial files", Integer.toString(pa), Integer.toString(pb), pa + pb > 0, false);
        return f;
    }

    private static void fact(List<FactRow> f, String label, String a, String b, boolean flag, boolean code) {
        String x = Fmt.text(a);
        String y = Fmt.text(b);
        f.add(new FactRow(label, x, y, flag && !Objects.equals(x, y), code));
    }

    private static java.util.Set<String> union(Map<String, Double> a, Map<String, Double> b) {
        java.util.Set<String> s = new java.util.LinkedHashSet<>();
        if (a != null) {
            s.addAll(a.keySet());
        }
        if (b != null) {
            s.addAll(b.keySet());
        }
        return s;
    }

    private static String devices(List<String> devices) {
        if (devices == null || devices.isEmpty()) {
            return Fmt.NA;
        }
        return String.join(", ", new java.util.TreeSet<>(devices));
    }

    private static String mark(boolean significant, Double delta) {
        if (!significant || delta == null || delta == 0) {
            return "";
        }
        return delta < 0 ? "faster" : "slower";
    }

    private static <T> List<T> nullSafe(List<T> l) {
        return l == null ? List.of() : l;
    }

    /** Numbers the shortened kernel names, once per distinct name (as the report does). */
    private static final class Names {
        private final Map<String, KernelName> byFull = new LinkedHashMap<>();

        KernelName of(String full) {
            String name = full == null || full.isEmpty() ? Fmt.NA : full;
            return byFull.computeIfAbsent(name, n -> {
                if (n.codePointCount(0, n.length()) <= ReportView.NAME_LIMIT) {
                    return new KernelName(n, n, false, 0);
                }
                int ref = (int) byFull.values().stream().filter(KernelName::shortened).count() + 1;
                int cut = n.offsetByCodePoints(0, ReportView.NAME_LIMIT - 1);
                return new KernelName(n, n.substring(0, cut) + "…", true, ref);
            });
        }

        List<KernelName> longNames() {
            return byFull.values().stream().filter(KernelName::shortened).toList();
        }
    }
}
