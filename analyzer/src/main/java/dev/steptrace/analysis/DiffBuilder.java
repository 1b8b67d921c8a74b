package dev.steptrace.analysis;

import dev.steptrace.classify.Category;
import dev.steptrace.common.Phase;
import dev.steptrace.common.StepPart;
import dev.steptrace.common.Stats;
import dev.steptrace.report.BottleneckReport.Collective;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.CaptureDiff.CategoryDelta;
import dev.steptrace.report.CaptureDiff.CollectiveDelta;
import dev.steptrace.report.CaptureDiff.CollectiveSide;
import dev.steptrace.report.CaptureDiff.Delta;
import dev.steptrace.report.CaptureDiff.CallsDelta;
import dev.steptrace.report.CaptureDiff.KernelDelta;
import dev.steptrace.report.CaptureDiff.MsPerStepDelta;
import dev.steptrace.report.CaptureDiff.PhaseDiff;
import dev.steptrace.report.CaptureDiff.Side;
import dev.steptrace.report.CaptureDiff.SubcategoryDelta;
import dev.steptrace.report.CaptureDiff.PartDelta;
import dev.steptrace.report.CaptureDiff.RankPair;
import dev.steptrace.report.CaptureDiff.StepTimeDiff;
import dev.steptrace.report.CaptureDiff.ValuePair;
import dev.steptrace.report.CaptureDiff.Verdict;
import dev.steptrace.report.CaptureDiff;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Compares two analysed captures, A (baseline) and B, phase by phase (docs/diff.md): per headline
 * category and subcategory, ms per step in each, the change B - A with a 95% percentile-bootstrap
 * interval over steps, and whether it is significant (the interval excludes zero and the change
 * exceeds the noise floor); the same for kernel time and span per step, which give the phase's
 * verdict; kernels matched by normalized name ({@link KernelNames}); collectives; and warnings where
 * the captures differ in structure.
 *
 * <p>Every number comes from the captures' analyses as the store keeps them ({@link StoredAnalysis}: the
 * per-step tables {@code step_metrics}, {@code step_categories}, {@code step_kernels}) and the reports
 * built from them, so A's and B's values are the ones their reports print.
 */
public final class DiffBuilder {
    public static final int DEFAULT_RESAMPLES = 2000;
    public static final long DEFAULT_SEED = 1;
    public static final double CONFIDENCE = 0.95;
    /** A significant change exceeds this percentage of the A value ... */
    public static final double NOISE_FLOOR_PCT = 1.0;
    /** ... and this percentage of A's kernel time per step in the phase, or else ... */
    public static final double NOISE_FLOOR_STEP_PCT = 0.05;
    /** ... this percentage of the A value (small quantities that changed a lot), ... */
    public static final double NOISE_FLOOR_SMALL_PCT = 10.0;
    /** ... and this many ms per step (docs/diff.md, "Noise floor"). */
    public static final double NOISE_FLOOR_MIN_MS = 0.001;
    /** Kernels listed by absolute change, at least; added, removed and calls-changed ones come on top. */
    static final int TOP_KERNELS = 20;
    static final int MAX_KERNELS = 60;
    /** Calls per step changed when they moved by at least this much. */
    static final double CALLS_CHANGE = 0.5;
    /** Fewer steps per rank than this on either side: the interval is rough (a warning says so). */
    static final int FEW_STEPS = 5;
    private static final int RAW_NAMES = 5;
    /** A kernel whose time moved by less than this (1 ns per step) has not moved: not listed for its time. */
    private static final double UNCHANGED_MS = 1e-6;

    private final StoredAnalysis a;
    private final BottleneckReport reportA;
    private final StoredAnalysis b;
    private final BottleneckReport reportB;
    private final long seed;
    private final int resamples;

    /** The two kept analyses and the reports made from them (whose values the diff's sides print). */
    public DiffBuilder(StoredAnalysis a, BottleneckReport reportA, StoredAnalysis b, BottleneckReport reportB, long seed) {
        this(a, reportA, b, reportB, seed, DEFAULT_RESAMPLES);
    }

    public DiffBuilder(StoredAnalysis a, BottleneckReport reportA, StoredAnalysis b, BottleneckReport reportB, long seed,
                       int resamples) {
        if (resamples < 100) {
            throw new IllegalArgumentException("at least 100 resamples, not " + resamples);
        }
        this.a = a;
        this.reportA = reportA;
        this.b = b;
        this.reportB = reportB;
        this.seed = seed;
        this.resamples = resamples;
    }

    public CaptureDiff build(String toolVersion) throws SQLException {
        SideData sa = load(a, reportA);
        SideData sb = load(b, reportB);
        List<Warning> warnings = new ArrayList<>(structureWarnings(sa, sb));
        Map<String, PhaseDiff> phases = new LinkedHashMap<>();
        for (String phase : Phase.IDS) {
            PhaseData pa = sa.phases.get(phase);
            PhaseData pb = sb.phases.get(phase);
            if (pa == null && pb == null) {
                continue;
            }
            if (pa == null || pb == null) {
                warnings.add(new Warning(pa == null ? "phase_only_in_b" : "phase_only_in_a",
                        Phase.labelOf(phase) + " steps are only in " + (pa == null ? "B (" + sb.report.capture().name() + ")"
                                : "A (" + sa.report.capture().name() + ")") + ": not compared"));
                continue;
            }
            if (pa.minSteps() < FEW_STEPS || pb.minSteps() < FEW_STEPS) {
                warnings.add(new Warning("few_steps", Phase.labelOf(phase) + ": " + steps(pa.minSteps()) + " per rank in A and "
                        + pb.minSteps() + " in B; intervals from fewer than " + FEW_STEPS
                        + " steps are rough" + (pa.sample.indexes() < 2 || pb.sample.indexes() < 2
                                ? ", and with one step there is none: nothing is marked significant" : "")));
            }
            PhaseDiff pd = phase(phase, pa, pb, sa.report, sb.report);
            Delta step = pd.stepTime().change();
            if (step.significant() && pd.kernelMsPerStep().significant()
                    && Math.signum(pd.kernelMsPerStep().deltaMs()) != Math.signum(step.deltaMs())) {
                warnings.add(new Warning("verdict_mixed", Phase.labelOf(phase) + ": kernel time per step moved "
                        + direction(pd.kernelMsPerStep().deltaMs()) + " but the step time " + direction(step.deltaMs())
                        + "; the verdict follows the step time (idle time, waits or overlap moved more than the kernels)"));
            }
            phases.put(phase, pd);
        }
        if (phases.isEmpty()) {
            warnings.add(new Warning("no_common_phase", "the captures have no phase in common: nothing to compare"));
        }
        CaptureDiff.Method method = new CaptureDiff.Method("percentile_bootstrap", "step", resamples, seed, CONFIDENCE,
                NOISE_FLOOR_PCT, NOISE_FLOOR_STEP_PCT, NOISE_FLOOR_SMALL_PCT, NOISE_FLOOR_MIN_MS, "hex literals, anonymous-namespace hashes, TorchInductor kernel"
                        + " numbers and Triton specialization suffixes masked; whitespace collapsed");
        return new CaptureDiff(CaptureDiff.SCHEMA, new BottleneckReport.Tool("steptrace", toolVersion),
                side(sa), side(sb), method, phases, warnings);
    }

    // ---- one side ----

    private static final class SideData {
        BottleneckReport report;
        final Map<String, PhaseData> phases = new LinkedHashMap<>();
    }

    /** One phase of one capture: its steps as cells, and every per-step quantity over them. */
    private static final class PhaseData {
        StepSample sample;
        int[] stepsPerRank;
        double[] kernelMs;
        double[] spanMs;
        /** Step time per cell (NaN where the analysis has none). */
        double[] stepMs;
        /** Step-time part to ms per cell. */
        final Map<String, double[]> partMs = new TreeMap<>();
        /** "category" and "category/subcategory" to ms and calls per cell. */
        final Map<String, double[]> catMs = new TreeMap<>();
        final Map<String, double[]> catCalls = new TreeMap<>();
        final Map<String, KernelData> kernels = new HashMap<>();

        int minSteps() {
            return Arrays.stream(stepsPerRank).min().orElse(0);
        }

        double[] zeros() {
            return new double[sample.cells()];
        }

        double estimate(double[] values) {
            return sample.prepare(values).at(sample.identity());
        }
    }

    private static final class KernelData {
        final Set<String> rawNames = new TreeSet<>();
        String category;
        String subcategory;
        double[] ms;
        double[] calls;
    }

    private static SideData load(StoredAnalysis analysis, BottleneckReport report) throws SQLException {
        SideData side = new SideData();
        side.report = report;
        Map<String, Map<Long, Integer>> cellOf = loadSteps(analysis, side);
        loadCategories(analysis, side, cellOf);
        loadParts(analysis, side, cellOf);
        loadKernels(analysis, side, cellOf);
        return side;
    }

    /**
     * Each phase's steps as cells of the bootstrap's (rank, step index) grid, with their kernel time and span;
     * returns per phase the cell of each (file, step).
     */
    private static Map<String, Map<Long, Integer>> loadSteps(StoredAnalysis analysis, SideData side) throws SQLException {
        Map<String, Map<Long, Integer>> cellOf = new HashMap<>();
        Map<String, List<long[]>> rows = new LinkedHashMap<>();
        Map<String, List<double[]>> values = new HashMap<>();
        analysis.query("diff-steps", Map.of(), rs -> {
            String phase = rs.getString(1);
            rows.computeIfAbsent(phase, k -> new ArrayList<>())
                    .add(new long[] {rs.getInt(2), rs.getInt(3), rs.getInt(4), rs.getInt(5)});
            long span = rs.getLong(7);
            double spanMs = rs.wasNull() ? Double.NaN : span / 1e6;
            long step = rs.getLong(8);
            double stepMs = rs.wasNull() ? Double.NaN : step / 1e6;
            values.computeIfAbsent(phase, k -> new ArrayList<>()).add(new double[] {rs.getLong(6) / 1e6, spanMs, stepMs});
        });
        for (Map.Entry<String, List<long[]>> e : rows.entrySet()) {
            List<long[]> cells = e.getValue();
            Map<Long, Integer> rankPos = new TreeMap<>();
            Map<Long, Integer> indexPos = new TreeMap<>();
            cells.forEach(c -> {
                rankPos.put(c[2], 0);
                indexPos.put(c[3], 0);
            });
            int i = 0;
            for (Long k : rankPos.keySet()) {
                rankPos.put(k, i++);
            }
            i = 0;
            for (Long k : indexPos.keySet()) {
                indexPos.put(k, i++);
            }
            int[] rankOf = new int[cells.size()];
            int[] indexOf = new int[cells.size()];
            PhaseData pd = new PhaseData();
            pd.stepsPerRank = new int[rankPos.size()];
            pd.kernelMs = new double[cells.size()];
            pd.spanMs = new double[cells.size()];
            pd.stepMs = new double[cells.size()];
            Map<Long, Integer> cellIds = new HashMap<>();
            for (int c = 0; c < cells.size(); c++) {
                long[] row = cells.get(c);
                rankOf[c] = rankPos.get(row[2]);
                indexOf[c] = indexPos.get(row[3]);
                pd.stepsPerRank[rankOf[c]]++;
                double[] v = values.get(e.getKey()).get(c);
                pd.kernelMs[c] = v[0];
                pd.spanMs[c] = v[1];
                pd.stepMs[c] = v[2];
                cellIds.put(key(row[0], row[1]), c);
            }
            pd.sample = new StepSample(rankOf, indexOf, rankPos.size(), indexPos.size());
            side.phases.put(e.getKey(), pd);
            cellOf.put(e.getKey(), cellIds);
        }
        return cellOf;
    }

    /** Per cell, ms and calls of each category and category/subcategory. */
    private static void loadCategories(StoredAnalysis analysis, SideData side, Map<String, Map<Long, Integer>> cellOf)
            throws SQLException {
        analysis.query("diff-categories", Map.of(), rs -> {
            PhaseData pd = side.phases.get(rs.getString(1));
            Integer cell = cellOf.get(rs.getString(1)).get(key(rs.getInt(2), rs.getInt(3)));
            if (pd == null || cell == null) {
                return;
            }
            double ms = rs.getLong(6) / 1e6;
            long calls = rs.getLong(7);
            for (String k : List.of(rs.getString(4), rs.getString(4) + "/" + rs.getString(5))) {
                pd.catMs.computeIfAbsent(k, x -> pd.zeros())[cell] += ms;
                pd.catCalls.computeIfAbsent(k, x -> pd.zeros())[cell] += calls;
            }
        });
    }

    /** Per cell, ms of each part of the step time. */
    private static void loadParts(StoredAnalysis analysis, SideData side, Map<String, Map<Long, Integer>> cellOf)
            throws SQLException {
        analysis.query("diff-step-parts", Map.of(), rs -> {
            PhaseData pd = side.phases.get(rs.getString(1));
            Integer cell = cellOf.get(rs.getString(1)).get(key(rs.getInt(2), rs.getInt(3)));
            if (pd == null || cell == null) {
                return;
            }
            pd.partMs.computeIfAbsent(rs.getString(4), x -> pd.zeros())[cell] += rs.getLong(5) / 1e6;
        });
    }

    /** Per cell, ms and calls of each kernel by normalized name ({@link KernelNames}). */
    private static void loadKernels(StoredAnalysis analysis, SideData side, Map<String, Map<Long, Integer>> cellOf)
            throws SQLException {
        List<String> names = new ArrayList<>();
        analysis.query("diff-kernels-names", Map.of(), rs -> names.add(rs.getString(1)));
        Map<String, String> normalized = new HashMap<>();
        analysis.query("diff-kernels", Map.of(), rs -> {
            PhaseData pd = side.phases.get(rs.getString(1));
            Integer cell = cellOf.get(rs.getString(1)).get(key(rs.getInt(2), rs.getInt(3)));
            if (pd == null || cell == null) {
                return;
            }
            String raw = names.get(rs.getInt(4));
            String name = normalized.computeIfAbsent(raw, KernelNames::normalize);
            KernelData k = pd.kernels.get(name);
            if (k == null) {
                k = new KernelData();
                k.category = rs.getString(5);
                k.subcategory = rs.getString(6);
                k.ms = pd.zeros();
                k.calls = pd.zeros();
                pd.kernels.put(name, k);
            }
            k.rawNames.add(raw);
            k.ms[cell] += rs.getLong(7) / 1e6;
            k.calls[cell] += rs.getLong(8);
        });
    }

    private static long key(long fileId, long step) {
        return (fileId << 32) | (step & 0xffffffffL);
    }

    // ---- one phase ----

    /** A quantity compared across the sides: values per cell of A and of B, and where its interval goes. */
    private static final class Quantity {
        final double[] a;
        final double[] b;
        double[] ci;

        Quantity(double[] a, double[] b) {
            this.a = a;
            this.b = b;
        }
    }

    private PhaseDiff phase(String phase, PhaseData pa, PhaseData pb, BottleneckReport ra, BottleneckReport rb) {
        List<Quantity> quantities = new ArrayList<>();
        Quantity kernel = add(quantities, pa.kernelMs, pb.kernelMs);
        Quantity span = add(quantities, pa.spanMs, pb.spanMs);
        Quantity step = add(quantities, pa.stepMs, pb.stepMs);
        Set<String> partKeys = new TreeSet<>(pa.partMs.keySet());
        partKeys.addAll(pb.partMs.keySet());
        Map<String, Quantity> parts = new LinkedHashMap<>();
        for (String k : partKeys) {
            parts.put(k, add(quantities, pa.partMs.getOrDefault(k, pa.zeros()), pb.partMs.getOrDefault(k, pb.zeros())));
        }

        Set<String> catKeys = new TreeSet<>(pa.catMs.keySet());
        catKeys.addAll(pb.catMs.keySet());
        Map<String, Quantity> cats = new LinkedHashMap<>();
        for (String k : catKeys) {
            cats.put(k, add(quantities, pa.catMs.getOrDefault(k, pa.zeros()), pb.catMs.getOrDefault(k, pb.zeros())));
        }

        // Kernels: point estimates for all, intervals for those listed.
        Set<String> names = new TreeSet<>(pa.kernels.keySet());
        names.addAll(pb.kernels.keySet());
        List<KernelRow> all = new ArrayList<>();
        for (String name : names) {
            KernelData ka = pa.kernels.get(name);
            KernelData kb = pb.kernels.get(name);
            KernelRow row = new KernelRow(name, ka, kb,
                    ka == null ? 0 : pa.estimate(ka.ms), kb == null ? 0 : pb.estimate(kb.ms),
                    ka == null ? 0 : pa.estimate(ka.calls), kb == null ? 0 : pb.estimate(kb.calls));
            all.add(row);
        }
        Comparator<KernelRow> byChange = Comparator.comparingDouble((KernelRow r) -> -Math.abs(r.bMs - r.aMs))
                .thenComparing(r -> r.name);
        all.sort(byChange);
        List<KernelRow> listed = new ArrayList<>();
        for (KernelRow r : all) {
            boolean structural = r.ka == null || r.kb == null || Math.abs(r.bCalls - r.aCalls) >= CALLS_CHANGE;
            boolean moved = Math.abs(r.bMs - r.aMs) >= UNCHANGED_MS;
            if (listed.size() < MAX_KERNELS && ((moved && listed.size() < TOP_KERNELS) || structural)) {
                listed.add(r);
            }
        }
        for (KernelRow r : listed) {
            r.q = add(quantities, r.ka == null ? pa.zeros() : r.ka.ms, r.kb == null ? pb.zeros() : r.kb.ms);
        }

        bootstrap(phase, pa.sample, pb.sample, quantities);

        double stepA = pa.estimate(pa.kernelMs);
        Delta kernelDelta = delta(stepA, pb.estimate(pb.kernelMs), kernel.ci, stepA);
        Delta spanDelta = delta(pa.estimate(pa.spanMs), pb.estimate(pb.spanMs), span.ci, stepA);
        double wallA = pa.estimate(pa.stepMs);
        Delta stepDelta = delta(wallA, pb.estimate(pb.stepMs), step.ci, wallA);
        List<PartDelta> partDeltas = new ArrayList<>();
        for (Map.Entry<String, Quantity> e : parts.entrySet()) {
            double x = pa.partMs.containsKey(e.getKey()) ? pa.estimate(pa.partMs.get(e.getKey())) : 0;
            double y = pb.partMs.containsKey(e.getKey()) ? pb.estimate(pb.partMs.get(e.getKey())) : 0;
            Delta d = delta(x, y, e.getValue().ci, wallA);
            partDeltas.add(new PartDelta(e.getKey(), StepPart.labelOf(e.getKey()), x, y, d.deltaMs(), d.deltaPct(),
                    d.ci95Ms(), d.noiseFloorMs(), d.significant()));
        }
        partDeltas.sort(Comparator.comparingDouble((PartDelta x) -> -Math.abs(x.deltaMs())).thenComparing(PartDelta::name));
        StepTimeDiff stepTime = new StepTimeDiff(stepDelta, partDeltas,
                new RankPair(paceRank(ra, phase), paceRank(rb, phase)),
                new RankPair(straggler(ra, phase), straggler(rb, phase)),
                new ValuePair(hiddenPct(ra, phase), hiddenPct(rb, phase)));

        List<CategoryDelta> categories = new ArrayList<>();
        for (String k : catKeys) {
            if (k.contains("/")) {
                continue;
            }
            Delta d = delta(pa, pb, k, cats.get(k), stepA);
            List<SubcategoryDelta> subs = new ArrayList<>();
            for (String sk : catKeys) {
                if (sk.startsWith(k + "/")) {
                    Delta sd = delta(pa, pb, sk, cats.get(sk), stepA);
                    subs.add(new SubcategoryDelta(sk.substring(k.length() + 1), sd.a(), sd.b(), sd.deltaMs(),
                            sd.deltaPct(), sd.ci95Ms(), sd.noiseFloorMs(), sd.significant(),
                            calls(pa, sk), calls(pb, sk)));
                }
            }
            subs.sort(Comparator.comparingDouble((SubcategoryDelta x) -> -Math.abs(x.deltaMs()))
                    .thenComparing(SubcategoryDelta::id));
            if (d.a() == 0 && d.b() == 0) {
                continue;
            }
            categories.add(new CategoryDelta(k, Category.ofId(k).map(Category::label).orElse(k), d.a(), d.b(),
                    d.deltaMs(), d.deltaPct(), d.ci95Ms(), d.noiseFloorMs(), d.significant(), calls(pa, k), calls(pb, k), subs));
        }
        categories.sort(Comparator.comparingDouble((CategoryDelta x) -> -Math.abs(x.deltaMs()))
                .thenComparingInt(x -> order(x.id())).thenComparing(CategoryDelta::id));

        List<KernelDelta> kernels = new ArrayList<>();
        for (KernelRow r : listed) {
            Delta d = delta(r.aMs, r.bMs, r.q.ci, stepA);
            KernelData any = r.kb != null ? r.kb : r.ka;
            Set<String> raw = new LinkedHashSet<>();
            if (r.ka != null) {
                raw.addAll(r.ka.rawNames);
            }
            if (r.kb != null) {
                raw.addAll(r.kb.rawNames);
            }
            String change = r.ka == null ? "added" : r.kb == null ? "removed" : "changed";
            kernels.add(new KernelDelta(r.name, raw.stream().limit(RAW_NAMES).toList(), any.category, any.subcategory,
                    change, new MsPerStepDelta(r.aMs, r.bMs, d.deltaMs(), d.deltaPct(), d.ci95Ms(), d.noiseFloorMs(),
                            d.significant()),
                    new CallsDelta(r.aCalls, r.bCalls, r.bCalls - r.aCalls, Math.abs(r.bCalls - r.aCalls) >= CALLS_CHANGE,
                            r.aCalls > 0 ? r.aMs / r.aCalls * 1000 : null, r.bCalls > 0 ? r.bMs / r.bCalls * 1000 : null)));
        }

        return new PhaseDiff(verdict(stepDelta, kernelDelta, spanDelta), Stats.mean(pa.stepsPerRank),
                Stats.mean(pb.stepsPerRank), stepTime, kernelDelta, spanDelta, categories, kernels, collectives(phase, ra, rb));
    }

    private static final class KernelRow {
        final String name;
        final KernelData ka;
        final KernelData kb;
        final double aMs;
        final double bMs;
        final double aCalls;
        final double bCalls;
        Quantity q;

        KernelRow(String name, KernelData ka, KernelData kb, double aMs, double bMs, double aCalls, double bCalls) {
            this.name = name;
            this.ka = ka;
            this.kb = kb;
            this.aMs = aMs;
            this.bMs = bMs;
            this.aCalls = aCalls;
            this.bCalls = bCalls;
        }
    }

    private static Quantity add(List<Quantity> quantities, double[] a, double[] b) {
        Quantity q = new Quantity(a, b);
        quantities.add(q);
        return q;
    }

    /**
     * Fills each quantity's interval: {@link #resamples} times, draw A's steps and B's steps with
     * replacement (independently: the captures are separate runs) and take B's statistic minus A's;
     * the interval is the 2.5th and 97.5th percentiles of those differences. One draw serves every
     * quantity, and the random stream depends only on the seed and the phase, so the output is
     * reproducible. No interval when either side has fewer than two steps.
     */
    private void bootstrap(String phase, StepSample sa, StepSample sb, List<Quantity> quantities) {
        if (sa.indexes() < 2 || sb.indexes() < 2) {
            return;
        }
        SplittableRandom rng = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + phase.hashCode());
        int n = quantities.size();
        StepSample.Prepared[] pa = new StepSample.Prepared[n];
        StepSample.Prepared[] pb = new StepSample.Prepared[n];
        double[][] d = new double[n][resamples];
        for (int q = 0; q < n; q++) {
            pa[q] = sa.prepare(quantities.get(q).a);
            pb[q] = sb.prepare(quantities.get(q).b);
        }
        for (int r = 0; r < resamples; r++) {
            int[] wa = sa.draw(rng);
            int[] wb = sb.draw(rng);
            for (int q = 0; q < n; q++) {
                d[q][r] = pb[q].at(wb) - pa[q].at(wa);
            }
        }
        double alpha = (1 - CONFIDENCE) / 2;
        for (int q = 0; q < n; q++) {
            double[] v = d[q];
            Arrays.sort(v);
            if (Double.isNaN(v[0]) || Double.isNaN(v[v.length - 1])) {
                continue; // a side with no value for this quantity (e.g. no span at all)
            }
            quantities.get(q).ci = new double[] {Stats.quantile(v, alpha), Stats.quantile(v, 1 - alpha)};
        }
    }
    private static Delta delta(PhaseData pa, PhaseData pb, String key, Quantity q, double stepA) {
        double a = pa.catMs.containsKey(key) ? pa.estimate(pa.catMs.get(key)) : 0;
        double b = pb.catMs.containsKey(key) ? pb.estimate(pb.catMs.get(key)) : 0;
        return delta(a, b, q.ci, stepA);
    }

    private static double calls(PhaseData pd, String key) {
        return pd.catCalls.containsKey(key) ? pd.estimate(pd.catCalls.get(key)) : 0;
    }

    /**
     * The change and its significance: the interval excludes zero and the change exceeds the noise
     * floor. {@code stepA} is A's kernel ms per step in the phase.
     */
    static Delta delta(double a, double b, double[] ci, double stepA) {
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return new Delta(Double.isNaN(a) ? null : a, Double.isNaN(b) ? null : b, null, null, null,
                    noiseFloor(Double.isNaN(a) ? 0 : a, stepA), false);
        }
        double delta = b - a;
        double floor = noiseFloor(a, stepA);
        boolean excludesZero = ci != null && (ci[0] > 0 || ci[1] < 0);
        boolean significant = excludesZero && Math.abs(delta) > floor;
        return new Delta(a, b, delta, a != 0 ? 100 * delta / a : null,
                ci == null ? null : List.of(ci[0], ci[1]), floor, significant);
    }

    /**
     * The smallest change that counts (docs/diff.md, "Noise floor"): more than {@value #NOISE_FLOOR_PCT}%
     * of the A value, and more than {@value #NOISE_FLOOR_STEP_PCT}% of A's kernel time per step or else
     * more than {@value #NOISE_FLOOR_SMALL_PCT}% of the A value, and more than {@value #NOISE_FLOOR_MIN_MS} ms:
     * {@code max(1% a, min(0.05% step, 10% a), 1 us)}.
     */
    public static double noiseFloor(double a, double stepA) {
        double x = Math.abs(a);
        double step = Double.isNaN(stepA) ? 0 : Math.abs(stepA);
        double matters = Math.min(NOISE_FLOOR_STEP_PCT / 100 * step, NOISE_FLOOR_SMALL_PCT / 100 * x);
        return Math.max(Math.max(NOISE_FLOOR_PCT / 100 * x, matters), NOISE_FLOOR_MIN_MS);
    }

    /**
     * The phase's verdict (docs/diff.md, "Verdict"): faster (slower) when the step time per step is significantly
     * lower (higher), else no significant change. Where a side has no step time, from kernel time and span:
     * faster (slower) when either is significantly lower (higher) and neither is significantly the other way;
     * when they disagree, the span decides.
     */
    static Verdict verdict(Delta step, Delta kernel, Delta span) {
        int v;
        if (step.deltaMs() != null) {
            v = step.significant() ? (int) Math.signum(step.deltaMs()) : 0;
        } else {
            int k = kernel.significant() ? (int) Math.signum(kernel.deltaMs()) : 0;
            int s = span.significant() ? (int) Math.signum(span.deltaMs()) : 0;
            v = s != 0 ? s : k;
        }
        return v < 0 ? Verdict.FASTER : v > 0 ? Verdict.SLOWER : Verdict.NO_SIGNIFICANT_CHANGE;
    }

    private static Integer paceRank(BottleneckReport r, String phase) {
        BottleneckReport.PhaseSummary p = r.phases().get(phase);
        return p == null || p.stepTime() == null ? null : p.stepTime().paceRank();
    }

    private static Integer straggler(BottleneckReport r, String phase) {
        BottleneckReport.PhaseSummary p = r.phases().get(phase);
        if (p == null || p.stragglers() == null) {
            return null;
        }
        return p.stragglers().stream().filter(BottleneckReport.Straggler::straggler).map(BottleneckReport.Straggler::rank)
                .findFirst().orElse(null);
    }

    private static Double hiddenPct(BottleneckReport r, String phase) {
        BottleneckReport.PhaseSummary p = r.phases().get(phase);
        return p == null || p.overlap() == null ? null : p.overlap().hiddenPct();
    }

    private static List<CollectiveDelta> collectives(String phase, BottleneckReport ra, BottleneckReport rb) {
        Map<String, Collective> ca = new LinkedHashMap<>();
        Map<String, Collective> cb = new LinkedHashMap<>();
        ra.collectives().stream().filter(c -> c.phase().equals(phase)).forEach(c -> ca.put(c.type(), c));
        rb.collectives().stream().filter(c -> c.phase().equals(phase)).forEach(c -> cb.put(c.type(), c));
        Set<String> types = new LinkedHashSet<>(ca.keySet());
        types.addAll(cb.keySet());
        List<CollectiveDelta> out = new ArrayList<>();
        for (String type : types) {
            Collective x = ca.get(type);
            Collective y = cb.get(type);
            CollectiveSide sx = collectiveSide(x);
            CollectiveSide sy = collectiveSide(y);
            boolean both = sx != null && sy != null;
            out.add(new CollectiveDelta(type, sx, sy,
                    both ? sy.meanUs() - sx.meanUs() : null,
                    both && sx.meanUs() != 0 ? 100 * (sy.meanUs() - sx.meanUs()) / sx.meanUs() : null,
                    both ? minus(sy.busbwGbps(), sx.busbwGbps()) : null,
                    both ? minus(sy.waitMsPerStep(), sx.waitMsPerStep()) : null,
                    both ? minus(sy.transferMsPerStep(), sx.transferMsPerStep()) : null));
        }
        return out;
    }

    private static CollectiveSide collectiveSide(Collective c) {
        if (c == null) {
            return null;
        }
        return new CollectiveSide(c.callsPerStep(), c.meanUs(), c.msgBytes() == null ? null : c.msgBytes().median(),
                c.busbwGbps(), c.waitMsPerStep(), c.transferMsPerStep());
    }

    private static Double minus(Double x, Double y) {
        return x == null || y == null ? null : x - y;
    }

    // ---- captures ----

    private static Side side(SideData s) {
        BottleneckReport.Capture c = s.report.capture();
        Map<String, Double> steps = new LinkedHashMap<>();
        s.report.phases().forEach((p, ph) -> steps.put(p, ph.steps()));
        String source = s.report.phases().values().stream().map(BottleneckReport.PhaseSummary::stepSource)
                .filter(Objects::nonNull).findFirst().orElse(null);
        return new Side(c.path(), c.name(), c.format(), c.files(), c.ranks(), c.worldSize(), c.devices(),
                c.partialFiles(), source, steps, s.report.warnings());
    }

    private static List<Warning> structureWarnings(SideData sa, SideData sb) {
        List<Warning> w = new ArrayList<>();
        BottleneckReport.Capture a = sa.report.capture();
        BottleneckReport.Capture b = sb.report.capture();
        if (!Objects.equals(a.worldSize(), b.worldSize())) {
            w.add(new Warning("world_size_differs", "world size " + text(a.worldSize()) + " in A, " + text(b.worldSize())
                    + " in B: per-rank times compare different shardings of the model"));
        }
        if (a.ranks().size() != b.ranks().size()) {
            w.add(new Warning("ranks_differ", a.ranks().size() + " ranks traced in A, " + b.ranks().size()
                    + " in B: each side is averaged over its own ranks"));
        }
        if (!new TreeSet<>(a.devices()).equals(new TreeSet<>(b.devices()))) {
            w.add(new Warning("devices_differ", "devices differ: A ran on " + devices(a.devices()) + ", B on "
                    + devices(b.devices())));
        }
        String srcA = side(sa).stepSource();
        String srcB = side(sb).stepSource();
        if (srcA != null && srcB != null && !srcA.equals(srcB)) {
            w.add(new Warning("step_source_differs", "steps come from " + srcA + " in A and " + srcB
                    + " in B: a step may not cover the same work on both sides"));
        }
        if (!Objects.equals(a.format(), b.format())) {
            w.add(new Warning("format_differs", "A is a " + a.format() + " capture, B a " + b.format() + " one"));
        }
        for (SideData s : List.of(sa, sb)) {
            int n = s.report.capture().partialFiles() == null ? 0 : s.report.capture().partialFiles().size();
            if (n > 0) {
                w.add(new Warning("partial_files", (s == sa ? "A" : "B") + " has " + n + " partial file" + (n == 1 ? "" : "s")
                        + " (cut or damaged): its steps may be incomplete"));
            }
        }
        return w;
    }

    private static String devices(List<String> d) {
        return d == null || d.isEmpty() ? "unknown devices" : String.join(", ", new TreeSet<>(d));
    }

    private static String text(Object o) {
        return o == null ? "unknown" : o.toString();
    }

    private static String steps(int n) {
        return n + (n == 1 ? " step" : " steps");
    }

    private static String direction(double d) {
        return d < 0 ? "down" : "up";
    }

    private static int order(String id) {
        return Category.ofId(id).map(Enum::ordinal).orElse(Category.values().length);
    }

}
