package dev.steptrace.report;

import dev.steptrace.common.Phase;
import dev.steptrace.common.Stats;
import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.Collective;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import dev.steptrace.report.BottleneckReport.RankPhase;
import dev.steptrace.report.BottleneckReport.RankSummary;
import dev.steptrace.report.BottleneckReport.RankValue;
import dev.steptrace.report.BottleneckReport.Stat;
import dev.steptrace.report.BottleneckReport.TopKernel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The templates' data model ({@code view} in a template): the report's content in reading order,
 * every number already formatted ({@link Fmt}; missing values are {@value Fmt#NA}), every string
 * non-null. Text is raw; the templates' output formats escape it. Templates also get the raw model as
 * {@code report} and {@code steps}, for users who want other numbers.
 *
 * @param phases       decode, prefill, mixed, unknown (those present), then any other id
 * @param mainPhase    the phase with the most time (steps x step time, or kernel time where the step time is
 *                     unknown); "" with no phases
 * @param chartsNote   why charts are missing, or ""
 * @param longNames    kernel names shortened in tables, numbered ({@link KernelName#ref})
 */
public record ReportView(String title, String toolName, String toolVersion, String schema, String captureName,
                         String summary, List<PhaseView> phases, String mainPhase, List<CollectiveRow> collectives,
                         List<WarningRow> warnings, List<PartialFileRow> partialFiles, List<Fact> capture,
                         List<KernelName> longNames, String chartsNote) {

    /** Names longer than this are shortened in tables (the full name stays one click or one footnote away). */
    public static final int NAME_LIMIT = 80;
    /** The per-step table lists at most this many steps per phase. */
    public static final int STEP_ROWS_LIMIT = 200;
    /** The idle section lists this many of the largest host gaps per phase. */
    public static final int LARGEST_GAPS = 5;
    /** A category's one-line summary names this many of its subcategories. */
    public static final int SUB_SUMMARY = 3;

    /** One phase's sections, each a named part. */
    public record PhaseView(String id, String label, String anchor, StepsView steps, StepTimeView stepTime, Headline headline,
                            RankTable rankTable, StepTable stepTable, List<KernelRow> topKernels, IdleView idle,
                            StragglerView stragglers, OverlapView overlap, HostBoundView host, PhaseCharts charts,
                            RooflineView roofline, ContextView contexts) {}

    /**
     * Kernel time by what enclosed the launches (docs/reports.md, "By op, annotation and module"): the time classified
     * by context, and a table per layer that has rows (op, annotation, module).
     */
    public record ContextView(String classifiedMs, String classifiedCalls, List<ContextTable> tables) {}

    /** One layer's table: {@code title} names the layer (op, annotation, module). */
    public record ContextTable(String title, List<ContextLine> rows) {}

    /** One op, annotation or module: ms and calls per step, and its kernels with the most time. */
    public record ContextLine(KernelName name, String ms, String calls, List<KernelName> kernels) {}

    /** How many steps per rank, and where they came from ({@code sourceId} is report.json's {@code step_source}). */
    public record StepsView(String count, String label, String source, String sourceId) {}

    /** The headline: categories by ms per step with their total, and the per-step statistics. */
    public record Headline(List<CategoryRow> categories, CategoryRow total, String kernelMean, String kernelMedian,
                           String kernelP90, List<StatRow> stats) {}

    /** Per rank: one column per category, the rows, and the ranks marked fastest and slowest ({@code n/a}: none). */
    public record RankTable(List<Column> columns, List<RankRow> rows, String minRank, String maxRank) {}

    /** Per step across ranks: at most {@link #STEP_ROWS_LIMIT} rows of {@code count} steps. */
    public record StepTable(List<StepRow> rows, int count, boolean truncated) {}

    /** The phase's charts; each null when not drawn. */
    public record PhaseCharts(ChartRef shares, ChartRef ranks, ChartRef steps) {}

    /**
     * A headline row. {@code color} is the category's fixed chart color; {@code subcategories} what is
     * inside it (largest first), {@code subSummary} their names and shares of kernel time in one line.
     */
    public record CategoryRow(String id, String label, String color, String ms, String share, String calls,
                              List<SubcategoryRow> subcategories, String subSummary) {}

    /** A subcategory of a headline category; {@code share} is of the phase's total kernel time. */
    public record SubcategoryRow(String id, String ms, String share, String calls) {}

    /** A per-step quantity: mean, median, p90 over steps (mean over ranks), and the extreme ranks. */
    public record StatRow(String label, String mean, String median, String p90, String minRank, String maxRank) {}

    /** A per-rank table column: a category, with a short label for headers ({@code label} in full). */
    public record Column(String id, String label, String shortLabel, String color) {}

    /**
     * One rank in one phase. {@code mark} is "min", "max", "min max" or "" (the ranks with the lowest and
     * highest mean compute ms per step: kernel time without collective waits; kernel time when the
     * model has no compute time); {@code cells} are ms per step per {@link RankTable#columns}.
     */
    public record RankRow(String rank, String steps, String kernelMean, String kernelMedian, String kernelP90,
                          String computeMean, String waitMean, String spanMean, String mark, List<String> cells) {}

    /** One step index across ranks: kernel ms mean, min and max over ranks; span, busy, idle, host gap means. */
    /** A step across ranks; {@code timeline} is the command that writes its timeline (docs/timeline.md). */
    public record StepRow(String index, String name, String ranks, String kernelMean, String kernelMin,
                          String minRank, String kernelMax, String maxRank, String span, String busy,
                          String idle, String hostGap, String timeline) {}

    /**
     * A kernel name: {@code display} is the full name or, beyond {@value #NAME_LIMIT} characters, its
     * start and an ellipsis; {@code ref} numbers shortened names (0 when not shortened).
     */
    public record KernelName(String full, String display, boolean shortened, int ref) {}

    public record KernelRow(KernelName name, String categoryId, String category, String color, String subcategory,
                            String rule, String ms, String share, String calls, String meanUs) {}

    public record IdleView(String spanMean, String busyMean, String idleMean, String busyPct, String hostGapMean,
                           String hostGapMedian, String hostGapP90, List<GapRow> largestGaps) {}

    public record GapRow(String rank, String step, String name, String ms) {}

    public record CollectiveRow(String phase, String phaseLabel, String type, String calls, String meanUs,
                                String msgBytes, String busbw, String waitMs, String transferMs, String waitShare) {}

    /** A warning: its code, its rule's severity and one-line summary (empty when it has no rule), its message. */
    public record WarningRow(String code, String severity, String summary, String message) {}

    public record PartialFileRow(String file, String reason) {}

    /** A capture fact; {@code code} asks for monospace (paths, ids). */
    public record Fact(String label, String value, boolean code) {}

    /** A drawn chart: inline SVG markup (HTML) or a file name beside the report (Markdown). */
    public record ChartRef(String id, String title, String svg, String file) {}

    // ---------------------------------------------------------------------------------------------

    /**
     * @param charts     drawn charts by chart id ({@code <phase>-shares|ranks|steps}); may be empty
     * @param chartsNote why charts are missing, or null
     */
    public static ReportView of(ReportContent content, Map<String, ChartRef> charts, String chartsNote) {
        BottleneckReport r = content.report();
        List<StepPoint> steps = content.steps() == null ? List.of() : content.steps();
        Names names = new Names();
        Map<String, PhaseSummary> phaseMap = r.phases() == null ? Map.of() : r.phases();

        List<PhaseView> phases = new ArrayList<>();
        String main = "";
        double mainTime = -1;
        for (String id : orderedPhases(phaseMap.keySet())) {
            PhaseSummary p = phaseMap.get(id);
            if (p == null) {
                continue;
            }
            phases.add(phase(id, p, r.ranks(), steps, names, charts, r.capture() == null ? null : r.capture().path()));
            double time = p.steps() * (p.stepTime() != null ? p.stepTime().msPerStep()
                    : p.kernelMsPerStep() != null && p.kernelMsPerStep().mean() != null
                    ? p.kernelMsPerStep().mean() : sumMs(p.categories()));
            if (time > mainTime) {
                mainTime = time;
                main = id;
            }
        }

        List<CollectiveRow> collectives = new ArrayList<>();
        List<Collective> cs = new ArrayList<>(r.collectives() == null ? List.of() : r.collectives());
        cs.sort(Comparator.comparingInt((Collective c) -> Phase.order(c.phase())));
        for (Collective c : cs) {
            Double waitShare = null;
            if (c.waitMsPerStep() != null && c.transferMsPerStep() != null
                    && c.waitMsPerStep() + c.transferMsPerStep() > 0) {
                waitShare = 100 * c.waitMsPerStep() / (c.waitMsPerStep() + c.transferMsPerStep());
            }
            collectives.add(new CollectiveRow(Fmt.text(c.phase()), Phase.labelOf(c.phase()), Fmt.text(c.type()),
                    Fmt.count(c.callsPerStep()), Fmt.us(c.meanUs()),
                    Fmt.bytes(c.msgBytes() == null ? null : c.msgBytes().median()), Fmt.gbps(c.busbwGbps()),
                    Fmt.ms(c.waitMsPerStep()), Fmt.ms(c.transferMsPerStep()), Fmt.pct(waitShare)));
        }

        List<WarningRow> warnings = new ArrayList<>();
        for (BottleneckReport.Warning w : r.warnings() == null ? List.<BottleneckReport.Warning>of() : r.warnings()) {
            warnings.add(new WarningRow(Fmt.text(w.code()), w.severity() == null ? "" : w.severity().label(),
                    w.summary() == null ? "" : Fmt.text(w.summary()), Fmt.text(w.message())));
        }

        BottleneckReport.Capture cap = r.capture();
        List<PartialFileRow> partial = new ArrayList<>();
        List<Fact> facts = new ArrayList<>();
        String captureName = "capture";
        String summary = "";
        if (cap != null) {
            captureName = Fmt.text(cap.name() != null ? cap.name() : cap.path());
            for (BottleneckReport.PartialFile pf : cap.partialFiles() == null ? List.<BottleneckReport.PartialFile>of() : cap.partialFiles()) {
                partial.add(new PartialFileRow(Fmt.text(pf.file()), Fmt.text(pf.reason())));
            }
            int rankCount = cap.ranks() == null ? 0 : (int) cap.ranks().stream().distinct().count();
            facts.add(new Fact("Path", Fmt.text(cap.path()), true));
            facts.add(new Fact("Format", Fmt.text(cap.format()), true));
            facts.add(new Fact("Files", Integer.toString(cap.files()), false));
            facts.add(new Fact("Ranks", cap.ranks() == null || cap.ranks().isEmpty() ? Fmt.NA
                    : Fmt.ranks(cap.ranks()) + " (" + rankCount + ")", false));
            facts.add(new Fact("World size", cap.worldSize() == null ? Fmt.NA : cap.worldSize().toString(), false));
            facts.add(new Fact("Devices", devices(cap.devices()), false));
            facts.add(new Fact("Partial files", partial.isEmpty() ? "none" : partial.size() + " (see warnings)", false));
            List<String> bits = new ArrayList<>();
            bits.add(rankCount == 1 ? "1 rank" : rankCount + " ranks");
            if (cap.format() != null) {
                bits.add(cap.format());
            }
            bits.add(cap.files() == 1 ? "1 file" : cap.files() + " files");
            String dev = devices(cap.devices());
            if (!Fmt.NA.equals(dev)) {
                bits.add(dev);
            }
            String graphs = cudaGraphs(phases);
            if (!graphs.isEmpty()) {
                bits.add(graphs);
            }
            summary = String.join(" · ", bits);
        }
        for (PhaseView p : phases) {
            facts.add(new Fact("Steps (" + p.id() + ")", p.steps().count() + " per rank, from " + p.steps().source(), false));
        }
        for (PhaseView p : phases) {
            if (p.host() != null) {
                facts.add(new Fact("CUDA graphs (" + p.id() + ")", p.host().graphs(), false));
            }
        }
        String toolName = r.tool() == null ? "steptrace" : Fmt.text(r.tool().name());
        String toolVersion = r.tool() == null ? Fmt.NA : Fmt.text(r.tool().version());
        facts.add(new Fact("Report", toolName + " " + toolVersion + ", schema " + Fmt.text(r.schema()), false));

        return new ReportView("steptrace report: " + captureName, toolName, toolVersion, Fmt.text(r.schema()),
                captureName, summary, phases, main, collectives, warnings, partial, facts, names.longNames(),
                chartsNote == null ? "" : chartsNote);
    }

    /**
     * Whether the capture replays CUDA graphs, for the header: "replays CUDA graphs (decode)", "no CUDA
     * graphs (eager launches)", or "" when the model does not say.
     */
    private static String cudaGraphs(List<PhaseView> phases) {
        List<String> replayed = new ArrayList<>();
        boolean known = false;
        for (PhaseView p : phases) {
            if (p.host() != null) {
                known = true;
                if (!"0".equals(p.host().replays())) {
                    replayed.add(p.id());
                }
            }
        }
        if (!known) {
            return "";
        }
        return replayed.isEmpty() ? "no CUDA graphs (eager launches)" : "replays CUDA graphs (" + String.join(", ", replayed) + ")";
    }

    private static PhaseView phase(String id, PhaseSummary p, List<RankSummary> rankSummaries, List<StepPoint> allSteps,
                                   Names names, Map<String, ChartRef> charts, String capturePath) {
        // Headline: by ms per step (largest first), ties in category order (docs/taxonomy.md).
        List<CategoryShare> cats = new ArrayList<>(p.categories() == null ? List.of() : p.categories());
        cats.sort(Comparator.comparingDouble(CategoryShare::msPerStep).reversed()
                .thenComparingInt(c -> ReportCategories.order(c.id())));
        List<StepPoint> steps = allSteps.stream().filter(s -> id.equals(s.phase())).toList();
        String stepCount = Fmt.count(p.steps());
        StepsView stepsView = new StepsView(stepCount, stepCount + ("1".equals(stepCount) ? " step" : " steps"),
                StepSource.labelOf(p.stepSource()), Fmt.text(p.stepSource()));
        return new PhaseView(id, Phase.labelOf(id), "phase-" + id.replaceAll("[^A-Za-z0-9_-]", "_"), stepsView,
                StepTimeView.of(id, p.stepTime(), rankSummaries), headline(p, cats, steps), rankTable(id, p, cats, rankSummaries), stepTable(id, p, steps, capturePath),
                topKernels(p, cats, names), idle(p, steps), StragglerView.of(p.stragglers()), OverlapView.of(p.overlap()),
                HostBoundView.of(p.hostBound()),
                new PhaseCharts(charts.get(id + "-shares"), charts.get(id + "-ranks"), charts.get(id + "-steps")),
                RooflineView.of(p, names::of, charts.get(id + "-roofline")), contexts(p, names));
    }

    /** The phase's tables by op, annotation and module; null when the report has no launch contexts. */
    private static ContextView contexts(PhaseSummary p, Names names) {
        BottleneckReport.LaunchContexts c = p.launchContexts();
        if (c == null) {
            return null;
        }
        List<ContextTable> tables = new ArrayList<>();
        table(tables, "CPU op", c.byOp(), names);
        table(tables, "annotation", c.byAnnotation(), names);
        table(tables, "module", c.byModule(), names);
        return new ContextView(Fmt.ms(c.contextClassifiedMsPerStep()), Fmt.plain(c.contextClassifiedCallsPerStep()),
                List.copyOf(tables));
    }

    private static void table(List<ContextTable> tables, String title, List<BottleneckReport.ContextRow> rows,
                              Names names) {
        if (rows == null || rows.isEmpty()) {
            return;
        }
        tables.add(new ContextTable(title, rows.stream().map(r -> new ContextLine(names.of(r.name()), Fmt.ms(r.msPerStep()),
                Fmt.plain(r.callsPerStep()), r.kernels().stream().map(k -> names.of(k.name())).toList())).toList()));
    }

    /** The categories (sorted) with their total, and the per-step statistics. */
    private static Headline headline(PhaseSummary p, List<CategoryShare> cats, List<StepPoint> steps) {
        List<CategoryRow> rows = new ArrayList<>();
        for (CategoryShare c : cats) {
            List<SubcategoryRow> subs = subcategories(c);
            rows.add(new CategoryRow(c.id(), ReportCategories.label(c.id(), c.label()), ReportCategories.color(c.id()),
                    Fmt.ms(c.msPerStep()), Fmt.pct(c.sharePct()), Fmt.count(c.callsPerStep()), subs,
                    subSummary(subs)));
        }
        CategoryRow total = new CategoryRow("total", "Total", "", Fmt.ms(rows.isEmpty() ? null : sum(cats, CategoryShare::msPerStep)),
                Fmt.pct(rows.isEmpty() ? null : sum(cats, CategoryShare::sharePct)),
                Fmt.count(rows.isEmpty() ? null : sum(cats, CategoryShare::callsPerStep)), List.of(), "");
        Stat kernel = p.kernelMsPerStep();
        List<StatRow> stats = new ArrayList<>();
        stats.add(statRow("Kernel time", kernel));
        stats.add(statRow("Compute (kernel time without collective waits)", p.computeMsPerStep()));
        stats.add(statRow("Span (first kernel start to last kernel end)", p.spanMsPerStep()));
        stats.add(statRow("Busy (union of kernel intervals)", p.busyMsPerStep()));
        stats.add(idleRow(p, steps));
        stats.add(statRow("Host gap before the step", p.hostGapMsPerStep()));
        return new Headline(rows, total, Fmt.ms(kernel == null ? null : kernel.mean()),
                Fmt.ms(kernel == null ? null : kernel.median()), Fmt.ms(kernel == null ? null : kernel.p90()), stats);
    }

    /** A figure of the categories, summed in their order. */
    private static double sum(List<CategoryShare> cats, ToDoubleFunction<CategoryShare> figure) {
        double total = 0;
        for (CategoryShare c : cats) {
            total += figure.applyAsDouble(c);
        }
        return total;
    }

    /** Per rank: kernel time statistics and ms per step of each category, the fastest and slowest rank marked. */
    private static RankTable rankTable(String id, PhaseSummary p, List<CategoryShare> cats, List<RankSummary> rankSummaries) {
        Map<String, String> colIds = new TreeMap<>(Comparator.comparingInt(ReportCategories::order)
                .thenComparing(Comparator.naturalOrder()));
        for (CategoryShare c : cats) {
            colIds.put(c.id(), ReportCategories.label(c.id(), c.label()));
        }
        List<RankSummary> ranks = new ArrayList<>(rankSummaries == null ? List.of() : rankSummaries);
        ranks.sort(Comparator.comparingInt(RankSummary::rank));
        for (RankSummary rs : ranks) {
            RankPhase rp = rs.phases() == null ? null : rs.phases().get(id);
            if (rp != null && rp.categories() != null) {
                rp.categories().forEach(c -> colIds.putIfAbsent(c.id(), ReportCategories.label(c.id(), c.label())));
            }
        }
        List<Column> columns = new ArrayList<>();
        colIds.forEach((cid, clabel) -> columns.add(new Column(cid, clabel, ReportCategories.chartLabel(clabel), ReportCategories.color(cid))));
        Integer[] extremes = extremeRanks(id, p, ranks);
        Integer minRank = extremes[0];
        Integer maxRank = extremes[1];
        List<RankRow> rankRows = new ArrayList<>();
        for (RankSummary rs : ranks) {
            RankPhase rp = rs.phases() == null ? null : rs.phases().get(id);
            String mark = ((minRank != null && minRank == rs.rank() ? "min " : "")
                    + (maxRank != null && maxRank == rs.rank() ? "max" : "")).strip();
            List<String> cells = new ArrayList<>();
            if (rp == null) {
                columns.forEach(c -> cells.add(Fmt.NA));
                rankRows.add(new RankRow(Integer.toString(rs.rank()), Fmt.NA, Fmt.NA, Fmt.NA, Fmt.NA, Fmt.NA, Fmt.NA,
                        Fmt.NA, mark, cells));
                continue;
            }
            Map<String, Double> byCat = new HashMap<>();
            for (CategoryShare c : rp.categories() == null ? List.<CategoryShare>of() : rp.categories()) {
                byCat.merge(c.id(), c.msPerStep(), Double::sum);
            }
            // A category absent from a rank's list had no time on that rank: a true zero.
            columns.forEach(c -> cells.add(Fmt.ms(byCat.getOrDefault(c.id(), 0.0))));
            BottleneckReport.PerStep k = rp.kernelMsPerStep();
            BottleneckReport.PerStep sp = rp.spanMsPerStep();
            BottleneckReport.PerStep cp = rp.computeMsPerStep();
            BottleneckReport.PerStep wt = rp.waitMsPerStep();
            rankRows.add(new RankRow(Integer.toString(rs.rank()), Fmt.count(rp.steps()),
                    Fmt.ms(k == null ? null : k.mean()), Fmt.ms(k == null ? null : k.median()),
                    Fmt.ms(k == null ? null : k.p90()), Fmt.ms(cp == null ? null : cp.mean()),
                    Fmt.ms(wt == null ? null : wt.mean()), Fmt.ms(sp == null ? null : sp.mean()), mark, cells));
        }
        return new RankTable(columns, rankRows, minRank == null ? Fmt.NA : minRank.toString(),
                maxRank == null ? Fmt.NA : maxRank.toString());
    }

    /**
     * The fastest and slowest rank ({min, max}, null where none), by compute time: a rank's spinning in
     * collectives while it waits for a late peer is kernel time, so by kernel time the rank everyone waits
     * for would look the fastest.
     */
    private static Integer[] extremeRanks(String id, PhaseSummary p, List<RankSummary> ranks) {
        Stat kernel = p.kernelMsPerStep();
        Stat badge = p.computeMsPerStep() != null && p.computeMsPerStep().min() != null ? p.computeMsPerStep() : kernel;
        Integer minRank = badge != null && badge.min() != null ? badge.min().rank() : null;
        Integer maxRank = badge != null && badge.max() != null ? badge.max().rank() : null;
        if (minRank == null || maxRank == null) {
            // The model did not say: the extremes of the ranks' own means, when there are any.
            RankSummary lo = null;
            RankSummary hi = null;
            for (RankSummary rs : ranks) {
                Double m = rankKernelMean(rs, id);
                if (m == null) {
                    continue;
                }
                if (lo == null || m < rankKernelMean(lo, id)) {
                    lo = rs;
                }
                if (hi == null || m > rankKernelMean(hi, id)) {
                    hi = rs;
                }
            }
            if (minRank == null && lo != null) {
                minRank = lo.rank();
            }
            if (maxRank == null && hi != null) {
                maxRank = hi.rank();
            }
        }
        if (minRank != null && minRank.equals(maxRank)) {
            return new Integer[] {null, null}; // one rank, or all alike: nothing to single out
        }
        return new Integer[] {minRank, maxRank};
    }

    /** Per step, across ranks: the first {@link #STEP_ROWS_LIMIT} steps. */
    private static StepTable stepTable(String id, PhaseSummary p, List<StepPoint> steps, String capturePath) {
        TreeMap<Integer, List<StepPoint>> byIndex = new TreeMap<>();
        for (StepPoint s : steps) {
            byIndex.computeIfAbsent(s.index(), k -> new ArrayList<>()).add(s);
        }
        // Where the model says span or busy is unsupported, the points' values are not shown either.
        boolean spanKnown = mean(p.spanMsPerStep()) != null;
        boolean busyKnown = mean(p.busyMsPerStep()) != null;
        List<StepRow> stepRows = new ArrayList<>();
        for (Map.Entry<Integer, List<StepPoint>> e : byIndex.entrySet()) {
            if (stepRows.size() >= STEP_ROWS_LIMIT) {
                break;
            }
            List<StepPoint> l = new ArrayList<>(e.getValue());
            l.sort(Comparator.comparingInt(StepPoint::rank));
            StepPoint lo = l.stream().min(Comparator.comparingDouble(StepPoint::kernelMs)).orElseThrow();
            StepPoint hi = l.stream().max(Comparator.comparingDouble(StepPoint::kernelMs)).orElseThrow();
            List<Double> gaps = l.stream().map(StepPoint::hostGapMs).filter(g -> g != null).toList();
            stepRows.add(new StepRow(Integer.toString(e.getKey()), Fmt.text(l.get(0).name()), Integer.toString(l.size()),
                    Fmt.ms(Stats.mean(l.stream().map(StepPoint::kernelMs).toList())), Fmt.ms(lo.kernelMs()),
                    Integer.toString(lo.rank()), Fmt.ms(hi.kernelMs()), Integer.toString(hi.rank()),
                    spanKnown ? Fmt.ms(Stats.mean(l.stream().map(StepPoint::spanMs).toList())) : Fmt.NA,
                    busyKnown ? Fmt.ms(Stats.mean(l.stream().map(StepPoint::busyMs).toList())) : Fmt.NA,
                    spanKnown && busyKnown ? Fmt.ms(Stats.mean(l.stream().map(s -> s.spanMs() - s.busyMs()).toList())) : Fmt.NA,
                    Fmt.ms(gaps.isEmpty() ? null : Stats.mean(gaps)),
                    capturePath == null ? Fmt.NA : Fmt.text(timelineCommand(capturePath, id, e.getKey()))));
        }
        return new StepTable(stepRows, byIndex.size(), byIndex.size() > stepRows.size());
    }

    /** The top kernels, their shares of the phase's kernel time (the categories' total when the model has no mean). */
    private static List<KernelRow> topKernels(PhaseSummary p, List<CategoryShare> cats, Names names) {
        Stat kernel = p.kernelMsPerStep();
        Double phaseKernel = kernel != null && kernel.mean() != null ? kernel.mean() : (cats.isEmpty() ? null : sum(cats, CategoryShare::msPerStep));
        List<KernelRow> top = new ArrayList<>();
        for (TopKernel k : p.topKernels() == null ? List.<TopKernel>of() : p.topKernels()) {
            top.add(new KernelRow(names.of(k.name()), Fmt.text(k.category()), ReportCategories.label(k.category(), null),
                    ReportCategories.color(k.category()), Fmt.text(k.subcategory()), Fmt.text(k.rule()),
                    Fmt.ms(k.msPerStep()),
                    Fmt.pct(phaseKernel == null || phaseKernel <= 0 ? null : 100 * k.msPerStep() / phaseKernel),
                    Fmt.count(k.callsPerStep()), Fmt.us(k.meanUs())));
        }
        return top;
    }

    /** Idle time and the largest host gaps. */
    private static IdleView idle(PhaseSummary p, List<StepPoint> steps) {
        Double spanMean = mean(p.spanMsPerStep());
        Double busyMean = mean(p.busyMsPerStep());
        Double idleMean = spanMean != null && busyMean != null ? spanMean - busyMean : null;
        Double busyPct = spanMean != null && busyMean != null && spanMean > 0 ? 100 * busyMean / spanMean : null;
        Stat gap = p.hostGapMsPerStep();
        List<GapRow> gapRows = steps.stream().filter(s -> s.hostGapMs() != null)
                .sorted(Comparator.comparingDouble((StepPoint s) -> s.hostGapMs()).reversed()
                        .thenComparingInt(StepPoint::rank).thenComparingInt(StepPoint::index))
                .limit(LARGEST_GAPS)
                .map(s -> new GapRow(Integer.toString(s.rank()), Integer.toString(s.index()), Fmt.text(s.name()), Fmt.ms(s.hostGapMs())))
                .toList();
        return new IdleView(Fmt.ms(spanMean), Fmt.ms(busyMean), Fmt.ms(idleMean), Fmt.pct(busyPct),
                Fmt.ms(gap == null ? null : gap.mean()), Fmt.ms(gap == null ? null : gap.median()),
                Fmt.ms(gap == null ? null : gap.p90()), gapRows);
    }

    /** The largest subcategories with their shares, in one line ("norm 2.1%, rotary 0.4%, …"). */
    private static String subSummary(List<SubcategoryRow> subs) {
        List<String> parts = subs.stream().limit(SUB_SUMMARY).map(r -> r.id() + " " + r.share()).toList();
        return String.join(", ", parts) + (subs.size() > SUB_SUMMARY ? ", …" : "");
    }

    /** A category's subcategories, largest first; shares of the phase's kernel time, as the category's. */
    private static List<SubcategoryRow> subcategories(CategoryShare c) {
        List<SubcategoryRow> out = new ArrayList<>();
        if (c.subcategories() == null || c.msPerStep() <= 0) {
            return out;
        }
        List<BottleneckReport.SubcategoryShare> subs = new ArrayList<>(c.subcategories());
        subs.sort(Comparator.comparingDouble(BottleneckReport.SubcategoryShare::msPerStep).reversed()
                .thenComparing(BottleneckReport.SubcategoryShare::id));
        for (BottleneckReport.SubcategoryShare sub : subs) {
            out.add(new SubcategoryRow(Fmt.text(sub.id()), Fmt.ms(sub.msPerStep()),
                    Fmt.pct(c.sharePct() * sub.msPerStep() / c.msPerStep()), Fmt.count(sub.callsPerStep())));
        }
        return out;
    }

    private static StatRow statRow(String label, Stat s) {
        if (s == null) {
            return new StatRow(label, Fmt.NA, Fmt.NA, Fmt.NA, Fmt.NA, Fmt.NA);
        }
        return new StatRow(label, Fmt.ms(s.mean()), Fmt.ms(s.median()), Fmt.ms(s.p90()), rankValue(s.min()), rankValue(s.max()));
    }

    /**
     * Idle (span minus busy) per step: the mean from the model's span and busy means; median and p90
     * from the per-step points (per rank, then the mean over ranks, as docs/reports.md aggregates), when given.
     */
    private static StatRow idleRow(PhaseSummary p, List<StepPoint> steps) {
        String label = "Idle within the step (span − busy)";
        Double span = mean(p.spanMsPerStep());
        Double busy = mean(p.busyMsPerStep());
        if (span == null || busy == null) {
            // The model says the trace cannot support span or busy: neither can idle be known.
            return new StatRow(label, Fmt.NA, Fmt.NA, Fmt.NA, Fmt.NA, Fmt.NA);
        }
        double idleMean = span - busy;
        if (steps.isEmpty()) {
            return new StatRow(label, Fmt.ms(idleMean), Fmt.NA, Fmt.NA, Fmt.NA, Fmt.NA);
        }
        Map<Integer, List<Double>> byRank = new TreeMap<>();
        steps.forEach(s -> byRank.computeIfAbsent(s.rank(), k -> new ArrayList<>()).add(s.spanMs() - s.busyMs()));
        double medianSum = 0;
        double p90Sum = 0;
        Integer lo = null;
        Integer hi = null;
        double loV = 0;
        double hiV = 0;
        for (Map.Entry<Integer, List<Double>> e : byRank.entrySet()) {
            List<Double> v = e.getValue().stream().sorted().toList();
            double m = Stats.mean(v);
            medianSum += Stats.quantile(v, 0.5);
            p90Sum += Stats.quantile(v, 0.9);
            if (lo == null || m < loV) {
                lo = e.getKey();
                loV = m;
            }
            if (hi == null || m > hiV) {
                hi = e.getKey();
                hiV = m;
            }
        }
        int n = byRank.size();
        boolean spread = loV < hiV; // one rank, or all alike: nothing to single out
        return new StatRow(label, Fmt.ms(idleMean), Fmt.ms(medianSum / n),
                Fmt.ms(p90Sum / n), spread ? rankValue(new RankValue(lo, loV)) : Fmt.NA,
                spread ? rankValue(new RankValue(hi, hiV)) : Fmt.NA);
    }

    private static String rankValue(RankValue v) {
        return v == null ? Fmt.NA : "rank " + v.rank() + " (" + Fmt.ms(v.value()) + ")";
    }

    private static Double rankKernelMean(RankSummary rs, String phase) {
        RankPhase rp = rs.phases() == null ? null : rs.phases().get(phase);
        return rp == null || rp.kernelMsPerStep() == null ? null : rp.kernelMsPerStep().mean();
    }

    private static Double mean(Stat s) {
        return s == null ? null : s.mean();
    }
    private static double sumMs(List<CategoryShare> cats) {
        return cats == null ? 0 : cats.stream().mapToDouble(CategoryShare::msPerStep).sum();
    }

    private static String devices(List<String> devices) {
        if (devices == null || devices.isEmpty()) {
            return Fmt.NA;
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        devices.forEach(d -> counts.merge(Fmt.text(d), 1, Integer::sum));
        List<String> parts = new ArrayList<>();
        counts.forEach((d, n) -> parts.add(n == 1 ? d : n + " × " + d));
        return String.join(", ", parts);
    }

    /** Phase ids in report order: decode, prefill, mixed, unknown, then others by name. */
    public static List<String> orderedPhases(Collection<String> ids) {
        return ids.stream().sorted(Comparator.comparingInt(Phase::order).thenComparing(Comparator.naturalOrder())).toList();
    }

    /** {@code steptrace timeline PATH --phase decode --steps 37}, the path quoted for a POSIX shell when it needs it. */
    static String timelineCommand(String capturePath, String phase, int step) {
        String path = capturePath.matches("[A-Za-z0-9_./+@%:,-]+") ? capturePath
                : "'" + capturePath.replace("'", "'\\''") + "'";
        return "steptrace timeline " + path + " --phase " + phase + " --steps " + step;
    }


    /** Numbers the shortened names, once per distinct name. */
    private static final class Names {
        private final Map<String, KernelName> byFull = new LinkedHashMap<>();

        KernelName of(String full) {
            String name = full == null || full.isEmpty() ? Fmt.NA : full;
            return byFull.computeIfAbsent(name, n -> {
                if (n.codePointCount(0, n.length()) <= NAME_LIMIT) {
                    return new KernelName(n, n, false, 0);
                }
                int ref = (int) byFull.values().stream().filter(KernelName::shortened).count() + 1;
                int cut = n.offsetByCodePoints(0, NAME_LIMIT - 1);
                return new KernelName(n, n.substring(0, cut) + "…", true, ref);
            });
        }

        List<KernelName> longNames() {
            return byFull.values().stream().filter(KernelName::shortened).toList();
        }
    }
}
