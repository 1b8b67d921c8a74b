package dev.steptrace.analysis;

import dev.steptrace.store.CaptureScope;
import dev.steptrace.common.Stats;
import dev.steptrace.classify.Category;
import dev.steptrace.common.Phase;
import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.Collective;
import dev.steptrace.report.BottleneckReport.MessageBytes;
import dev.steptrace.report.BottleneckReport.PartialFile;
import dev.steptrace.report.BottleneckReport.PerStep;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import dev.steptrace.report.BottleneckReport.RankPhase;
import dev.steptrace.report.BottleneckReport.RankSummary;
import dev.steptrace.report.BottleneckReport.RankValue;
import dev.steptrace.report.BottleneckReport.Stat;
import dev.steptrace.report.BottleneckReport.SubcategoryShare;
import dev.steptrace.report.BottleneckReport.TopKernel;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.ReportContent;
import dev.steptrace.report.StepPoint;
import dev.steptrace.roofline.RooflineInputs;
import dev.steptrace.roofline.RooflineSummary;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.TreeMap;

/**
 * Turns a capture's analysis, as the store keeps it ({@link StoredAnalysis}), into the report model. As
 * docs/reports.md says: per rank, mean / median / p90 over the rank's steps of a phase; across ranks,
 * the mean of the per-rank values with the lowest and highest rank; categories and kernels as time per step (a category absent from a step counts as 0
 * for it), shares of total kernel time.
 */
public final class ReportBuilder {
    /** Phases in report order. */
    private static final int TOP_KERNELS = 20;

    private final StoredAnalysis analysis;
    private final RooflineInputs rooflineInputs;

    /** The report of a kept analysis, with these device peaks and model file for the roofline (docs/roofline.md). */
    public ReportBuilder(StoredAnalysis analysis, RooflineInputs rooflineInputs) {
        this.analysis = analysis;
        this.rooflineInputs = rooflineInputs;
    }

    /** Same store, same analysis, same report.json: every query below reads its rows in a fixed order. */
    public ReportContent build(String toolVersion) throws SQLException {
        Map<String, Map<Integer, RankPhaseStats>> stats = rankPhaseStats();
        Map<String, Map<Integer, Map<String, double[]>>> subcats = rankSubcategories(stats);
        Map<String, List<BottleneckReport.Straggler>> stragglers = Stragglers.summarize(analysis);
        Map<String, BottleneckReport.Overlap> overlap = OverlapMetrics.summarize(analysis);
        Map<String, BottleneckReport.HostBound> host = HostBoundMetrics.summarize(analysis);
        StepTimeSummary stepTime = StepTimeSummary.of(analysis);
        Map<String, BottleneckReport.PhaseSummary> phases = new LinkedHashMap<>();
        RooflineSummary roofline = RooflineSummary.of(analysis.kept(),
                analysis.scope().files().stream().map(CaptureScope.FileInfo::fileId).toList(), rooflineInputs);
        for (String phase : Phase.IDS) {
            Map<Integer, RankPhaseStats> perRank = stats.get(phase);
            if (perRank == null) {
                continue;
            }
            phases.put(phase, new PhaseSummary(Stats.mean(perRank.values().stream().map(s -> (double) s.steps).toList()),
                    analysis.stepSource().id(), stepTime.phase(phase),
                    acrossRanks(perRank, s -> s.kernel), acrossRanks(perRank, s -> s.span),
                    acrossRanks(perRank, s -> s.busy), acrossRanks(perRank, s -> s.hostGap),
                    acrossRanks(perRank, s -> s.compute),
                    categories(subcats.get(phase), perRank.keySet().size()).stream()
                            .map(cs -> cs.withRoofline(roofline.category(phase, cs.id(), cs.msPerStep()))).toList(),
                    kernels(phase, TOP_KERNELS).stream()
                            .map(k -> k.withRoofline(roofline.kernel(phase, k.name()))).toList(),
                    multiRank() ? stragglers.getOrDefault(phase, List.of()) : null, overlap.get(phase), host.get(phase),
                    roofline.phase(phase), launchContexts(phase)));
        }
        List<RankSummary> ranks = new ArrayList<>();
        for (int rank : analysis.scope().ranks()) {
            Map<String, RankPhase> rp = new LinkedHashMap<>();
            for (String phase : Phase.IDS) {
                RankPhaseStats s = stats.getOrDefault(phase, Map.of()).get(rank);
                if (s != null) {
                    Map<Integer, Map<String, double[]>> one = Map.of(rank, subcats.get(phase).getOrDefault(rank, Map.of()));
                    rp.put(phase, new RankPhase(s.steps, stepTime.rank(phase, rank), s.kernel, s.span, s.compute, s.wait,
                            categories(one, 1)));
                }
            }
            ranks.add(new RankSummary(rank, rp));
        }
        // The kept analysis's warnings, then those of the report's own inputs (device peaks, model file).
        List<Warning> warnings = new ArrayList<>(analysis.warnings());
        warnings.addAll(roofline.warnings());
        BottleneckReport report = new BottleneckReport(BottleneckReport.SCHEMA,
                new BottleneckReport.Tool("steptrace", toolVersion), capture(), phases, collectives(stats),
                ranks, List.copyOf(warnings));
        return new ReportContent(report, stepPoints());
    }

    /** How many ops, annotations or modules a phase lists, and kernels under each. */
    static final int TOP_CONTEXTS = 15;
    static final int KERNELS_PER_CONTEXT = 3;

    /** A phase's kernel time by op, annotation and module around the launches, and the time classified by context. */
    private BottleneckReport.LaunchContexts launchContexts(String phase) throws SQLException {
        double[] classified = new double[2];
        analysis.query("context-classified", Map.of("phase", phase), rs -> {
            classified[0] = rs.getDouble(1);
            classified[1] = rs.getDouble(2);
        });
        return new BottleneckReport.LaunchContexts(classified[0], classified[1], contexts(phase, "op"),
                contexts(phase, "annotation"), contexts(phase, "module"));
    }

    private List<BottleneckReport.ContextRow> contexts(String phase, String layer) throws SQLException {
        Map<String, List<BottleneckReport.ContextKernel>> kernels = new LinkedHashMap<>();
        analysis.query("launch-contexts", Map.of("phase", phase, "layer", layer), rs -> kernels
                .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                .add(new BottleneckReport.ContextKernel(rs.getString(2), rs.getDouble(3), rs.getDouble(4))));
        List<BottleneckReport.ContextRow> rows = new ArrayList<>();
        kernels.forEach((name, ks) -> rows.add(new BottleneckReport.ContextRow(name,
                ks.stream().mapToDouble(BottleneckReport.ContextKernel::msPerStep).sum(),
                ks.stream().mapToDouble(BottleneckReport.ContextKernel::callsPerStep).sum(),
                List.copyOf(ks.subList(0, Math.min(KERNELS_PER_CONTEXT, ks.size()))))));
        rows.sort(java.util.Comparator.comparingDouble(BottleneckReport.ContextRow::msPerStep).reversed()
                .thenComparing(BottleneckReport.ContextRow::name));
        return List.copyOf(rows.subList(0, Math.min(TOP_CONTEXTS, rows.size())));
    }

    private BottleneckReport.Capture capture() throws SQLException {
        CaptureScope scope = analysis.scope();
        Integer worldSize = scope.files().stream().map(CaptureScope.FileInfo::worldSize)
                .filter(w -> w != null).max(Integer::compare).orElse(null);
        TreeSet<String> devices = new TreeSet<>();
        analysis.query("device-names", Map.of(), rs -> {
            if (rs.getString(3) != null) {
                devices.add(rs.getString(3));
            }
        });
        List<PartialFile> partial = scope.files().stream().filter(f -> "partial".equals(f.status()))
                .map(f -> new PartialFile(f.path().toString(), f.partialReason())).toList();
        String format = scope.files().stream().map(CaptureScope.FileInfo::format).findFirst().orElse("kineto");
        return new BottleneckReport.Capture(scope.path().toString(), scope.name(), format, scope.files().size(),
                scope.ranks(), worldSize, List.copyOf(devices), partial);
    }

    /** One rank's distribution of each per-step quantity in one phase. */
    private static final class RankPhaseStats {
        int steps;
        double kernelNsTotal;
        PerStep kernel;
        PerStep span;
        PerStep busy;
        PerStep hostGap;
        PerStep compute;
        PerStep wait;
    }

    private Map<String, Map<Integer, RankPhaseStats>> rankPhaseStats() throws SQLException {
        Map<String, Map<Integer, RankPhaseStats>> out = new HashMap<>();
        analysis.query("rank-phase-steps", Map.of(), rs -> {
            RankPhaseStats st = new RankPhaseStats();
            st.steps = rs.getInt(3);
            st.kernelNsTotal = rs.getDouble(4);
            st.kernel = perStep(rs, 5);
            st.span = perStep(rs, 8);
            st.busy = perStep(rs, 11);
            st.hostGap = perStep(rs, 14);
            out.computeIfAbsent(rs.getString(1), k -> new TreeMap<>()).put(rs.getInt(2), st);
        });
        CollectiveWaits.perRank(analysis).forEach((phase, ranks) -> ranks.forEach((rank, cw) -> {
            RankPhaseStats st = out.get(phase).get(rank);
            st.compute = cw[0];
            st.wait = cw[1];
        }));
        return out;
    }

    private static PerStep perStep(ResultSet rs, int col) throws SQLException {
        return new PerStep(ms(rs, col), ms(rs, col + 1), ms(rs, col + 2));
    }

    private static Double ms(ResultSet rs, int col) throws SQLException {
        double v = rs.getDouble(col);
        return rs.wasNull() ? null : v / 1e6;
    }

    private interface Pick {
        PerStep of(RankPhaseStats s);
    }

    private static Stat acrossRanks(Map<Integer, RankPhaseStats> perRank, Pick pick) {
        List<Double> means = new ArrayList<>();
        List<Double> medians = new ArrayList<>();
        List<Double> p90s = new ArrayList<>();
        RankValue min = null;
        RankValue max = null;
        for (Map.Entry<Integer, RankPhaseStats> e : perRank.entrySet()) {
            PerStep p = pick.of(e.getValue());
            if (p.mean() == null) {
                continue;
            }
            means.add(p.mean());
            medians.add(p.median());
            p90s.add(p.p90());
            if (min == null || p.mean() < min.value()) {
                min = new RankValue(e.getKey(), p.mean());
            }
            if (max == null || p.mean() > max.value()) {
                max = new RankValue(e.getKey(), p.mean());
            }
        }
        if (means.isEmpty()) {
            return new Stat(null, null, null, null, null);
        }
        return new Stat(Stats.mean(means), Stats.mean(medians), Stats.mean(p90s), min, max);
    }

    /** Per phase, rank, category: [ms per step, calls per step] and subcategories under "category/sub". */
    private Map<String, Map<Integer, Map<String, double[]>>> rankSubcategories(
            Map<String, Map<Integer, RankPhaseStats>> stats) throws SQLException {
        Map<String, Map<Integer, Map<String, double[]>>> out = new HashMap<>();
        for (String phase : stats.keySet()) {
            out.put(phase, new TreeMap<>());
        }
        analysis.query("rank-categories", Map.of(), rs -> {
            String phase = rs.getString(1);
            int rank = rs.getInt(2);
            int steps = stats.get(phase).get(rank).steps;
            double ms = rs.getDouble(5) / 1e6 / steps;
            double calls = rs.getDouble(6) / steps;
            Map<String, double[]> m = out.get(phase).computeIfAbsent(rank, k -> new TreeMap<>());
            add(m, rs.getString(3), ms, calls);
            add(m, rs.getString(3) + "/" + rs.getString(4), ms, calls);
        });
        return out;
    }

    private static void add(Map<String, double[]> m, String key, double ms, double calls) {
        double[] v = m.computeIfAbsent(key, k -> new double[2]);
        v[0] += ms;
        v[1] += calls;
    }

    /** Categories with time, sorted by ms per step, each the mean over {@code ranks} ranks. */
    private static List<CategoryShare> categories(Map<Integer, Map<String, double[]>> perRank, int ranks) {
        Map<String, double[]> sum = new TreeMap<>();
        if (perRank != null) {
            perRank.values().forEach(m -> m.forEach((k, v) -> add(sum, k, v[0], v[1])));
        }
        double total = 0;
        for (Category cat : Category.values()) {
            double[] v = sum.get(cat.id());
            total += v == null ? 0 : v[0] / ranks;
        }
        List<CategoryShare> out = new ArrayList<>();
        for (Category cat : Category.values()) {
            double[] v = sum.get(cat.id());
            if (v == null || v[0] <= 0) {
                continue;
            }
            List<SubcategoryShare> subs = new ArrayList<>();
            sum.forEach((k, sv) -> {
                if (k.startsWith(cat.id() + "/")) {
                    subs.add(new SubcategoryShare(k.substring(cat.id().length() + 1), sv[0] / ranks, sv[1] / ranks));
                }
            });
            subs.sort(Comparator.comparingDouble(SubcategoryShare::msPerStep).reversed());
            double ms = v[0] / ranks;
            out.add(new CategoryShare(cat.id(), cat.label(), ms, total == 0 ? 0 : 100 * ms / total, v[1] / ranks, subs));
        }
        out.sort(Comparator.comparingDouble(CategoryShare::msPerStep).reversed());
        return out;
    }

    /**
     * Every kernel (and memcpy/memset) of a phase, computed as the report's top kernels are (ms and
     * calls per step on each rank, averaged over ranks), largest first; empty when the capture has no
     * such phase. The report lists the first {@value #TOP_KERNELS}.
     */
    public List<TopKernel> kernels(String phase) throws SQLException {
        return kernels(phase, Integer.MAX_VALUE);
    }

    /**
     * The {@code limit} kernels of a phase with the most time per step, ranked in DuckDB: a capture may
     * hold millions of distinct names, the report needs a handful. Per name and class: a kernel some of
     * whose launches got another class from their context (ContextClasses) is listed once per class.
     */
    private List<TopKernel> kernels(String phase, int limit) throws SQLException {
        List<TopKernel> out = new ArrayList<>();
        analysis.query("top-kernels", Map.of("phase", phase, "top", limit), rs -> {
            double ms = rs.getDouble(5);
            double calls = rs.getDouble(6);
            out.add(new TopKernel(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), ms, calls,
                    calls == 0 ? 0 : ms / calls * 1000));
        });
        return out;
    }

    /** Whether there is more than one rank: waits, transfers and stragglers need several. */
    private boolean multiRank() {
        return analysis.scope().ranks().size() > 1;
    }

    private List<Collective> collectives(Map<String, Map<Integer, RankPhaseStats>> stats) throws SQLException {
        boolean multiRank = multiRank();
        List<Collective> out = new ArrayList<>();
        Map<String, List<double[]>> perType = new LinkedHashMap<>();
        Map<String, Object[]> shared = new HashMap<>();
        analysis.query("collectives", Map.of("ranks", analysis.scope().ranks().size()), rs -> {
            String phase = rs.getString(1);
            String key = phase + "\u0000" + rs.getString(2);
            int steps = stats.get(phase).get(rs.getInt(3)).steps;
            double wait = rs.getDouble(6);
            boolean hasWait = !rs.wasNull() && rs.getLong(7) > 0;
            perType.computeIfAbsent(key, k -> new ArrayList<>()).add(new double[] {
                    rs.getDouble(4) / steps, rs.getDouble(5), rs.getDouble(4), hasWait ? wait / 1e6 / steps : Double.NaN});
            shared.putIfAbsent(key, new Object[] {rs.getObject(8), rs.getObject(9), rs.getObject(10), steps});
        });
        for (Map.Entry<String, List<double[]>> e : perType.entrySet()) {
            String[] pt = e.getKey().split("\u0000");
            List<double[]> rows = e.getValue();
            double calls = Stats.mean(rows.stream().mapToDouble(r -> r[0]).toArray());
            double meanUs = rows.stream().mapToDouble(r -> r[1]).sum() / rows.stream().mapToDouble(r -> r[2]).sum() / 1e3;
            Object[] sh = shared.get(e.getKey());
            Double waitMs = multiRank && rows.stream().noneMatch(r -> Double.isNaN(r[3]))
                    ? Stats.mean(rows.stream().mapToDouble(r -> r[3]).toArray()) : null;
            Double transferMs = multiRank && sh[0] != null
                    ? ((Number) sh[0]).doubleValue() / 1e6 / meanSteps(stats.get(pt[0])) : null;
            MessageBytes bytes = sh[1] == null ? null : new MessageBytes(((Number) sh[1]).doubleValue());
            Double busbw = sh[2] == null ? null : ((Number) sh[2]).doubleValue();
            out.add(new Collective(pt[0], pt[1], calls, meanUs, bytes, busbw, waitMs, transferMs));
        }
        out.sort(Comparator.comparing((Collective x) -> Phase.IDS.indexOf(x.phase()))
                .thenComparing(Comparator.comparingDouble(Collective::callsPerStep).reversed()));
        return out;
    }

    /** Matched instances exist only for steps every rank has: the smallest step count of the phase. */
    private static double meanSteps(Map<Integer, RankPhaseStats> perRank) {
        return perRank.values().stream().mapToInt(s -> s.steps).min().orElse(1);
    }

    private List<StepPoint> stepPoints() throws SQLException {
        List<StepPoint> out = new ArrayList<>();
        Map<String, Map<String, Double>> cats = new HashMap<>();
        analysis.query("step-point-categories", Map.of(), rs -> cats.computeIfAbsent(rs.getInt(1) + "/" + rs.getInt(2),
                k -> new TreeMap<>()).put(rs.getString(3), rs.getLong(4) / 1e6));
        analysis.query("step-points", Map.of(), rs -> {
            long gap = rs.getLong(10);
            Double hostGap = rs.wasNull() ? null : gap / 1e6;
            long stepNs = rs.getLong(11);
            Double stepMs = rs.wasNull() ? null : stepNs / 1e6;
            out.add(new StepPoint(rs.getInt(3), rs.getString(4), rs.getInt(5), rs.getString(6),
                    rs.getLong(7) / 1e6, rs.getLong(8) / 1e6, rs.getLong(9) / 1e6, hostGap,
                    cats.getOrDefault(rs.getInt(1) + "/" + rs.getInt(2), Map.of()), stepMs));
        });
        return out;
    }

}
