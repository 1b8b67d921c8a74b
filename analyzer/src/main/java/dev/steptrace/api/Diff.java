package dev.steptrace.api;

import dev.steptrace.common.Messages;
import dev.steptrace.report.CaptureDiff.CategoryDelta;
import dev.steptrace.report.CaptureDiff.CollectiveDelta;
import dev.steptrace.report.CaptureDiff.CollectiveSide;
import dev.steptrace.report.CaptureDiff.KernelDelta;
import dev.steptrace.report.CaptureDiff.MsPerStepDelta;
import dev.steptrace.report.CaptureDiff.PhaseDiff;
import dev.steptrace.report.CaptureDiff.SubcategoryDelta;
import dev.steptrace.report.CaptureDiff;
import dev.steptrace.report.DiffWriters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Two captures compared phase by phase ({@link Steptrace#diff}; method in docs/diff.md): A is the
 * baseline, B the candidate, every delta is B - A (negative: time saved). {@link #model()} is
 * diff.json's content; the tables here lay its phases out for notebooks.
 */
public final class Diff {
    private final Capture a;
    private final Capture b;
    private final CaptureDiff model;

    Diff(Capture a, Capture b, CaptureDiff model) {
        this.a = a;
        this.b = b;
        this.model = model;
    }

    /**
     * The comparison as diff.json has it (schema {@code steptrace.diff/1}).
     *
     * @return the model
     */
    public CaptureDiff model() {
        return model;
    }

    /**
     * The phases both captures have, in report order.
     *
     * @return the phase ids
     */
    public List<String> phases() {
        return List.copyOf(model.phases().keySet());
    }

    /**
     * The verdict of a phase, from kernel time and span per step: {@code faster}, {@code slower} or
     * {@code no_significant_change}.
     *
     * @param phase a phase both captures have
     * @return the verdict
     */
    public CaptureDiff.Verdict verdict(String phase) {
        return phase(phase).verdict();
    }

    /**
     * The headline categories whose change is significant (interval excludes zero and the change exceeds
     * the noise floor), largest change first.
     *
     * @param phase a phase both captures have
     * @return category ids
     */
    public List<String> significantCategories(String phase) {
        return phase(phase).categories().stream().filter(CategoryDelta::significant).map(CategoryDelta::id).toList();
    }

    /**
     * Per headline category: ms per step in A and B, the change with its 95% bootstrap interval and noise
     * floor, whether it is significant, calls per step; largest absolute change first. Columns: category,
     * label, a_ms_per_step, b_ms_per_step, delta_ms, delta_pct, ci95_lo_ms, ci95_hi_ms, noise_floor_ms,
     * significant, a_calls_per_step, b_calls_per_step.
     *
     * @param phase a phase both captures have
     * @return the table
     */
    public Table categories(String phase) {
        Table t = deltaTable("categories " + phase, StringColumn.create("category"), StringColumn.create("label"));
        for (CategoryDelta c : phase(phase).categories()) {
            t.stringColumn("category").append(c.id());
            t.stringColumn("label").append(c.label());
            appendDelta(t, c.aMsPerStep(), c.bMsPerStep(), c.deltaMs(), c.deltaPct(), c.ci95Ms(), c.noiseFloorMs(),
                    c.significant(), c.aCallsPerStep(), c.bCallsPerStep());
        }
        return t;
    }

    /**
     * Per subcategory (norm, activation, ...) of each category, as {@link #categories}. Columns:
     * category, subcategory, then those of {@link #categories} from a_ms_per_step on.
     *
     * @param phase a phase both captures have
     * @return the table
     */
    public Table subcategories(String phase) {
        Table t = deltaTable("subcategories " + phase, StringColumn.create("category"),
                StringColumn.create("subcategory"));
        for (CategoryDelta c : phase(phase).categories()) {
            for (SubcategoryDelta s : c.subcategories()) {
                t.stringColumn("category").append(c.id());
                t.stringColumn("subcategory").append(s.id());
                appendDelta(t, s.aMsPerStep(), s.bMsPerStep(), s.deltaMs(), s.deltaPct(), s.ci95Ms(), s.noiseFloorMs(),
                        s.significant(), s.aCallsPerStep(), s.bCallsPerStep());
            }
        }
        return t;
    }

    /**
     * The kernels that moved (matched by normalized name; docs/diff.md lists which are kept): largest
     * absolute change first. Columns: name, category, subcategory, change ({@code changed},
     * {@code added}, {@code removed}), a_ms_per_step, b_ms_per_step, delta_ms, delta_pct, ci95_lo_ms,
     * ci95_hi_ms, noise_floor_ms, significant, a_calls_per_step, b_calls_per_step, a_mean_us, b_mean_us.
     *
     * @param phase a phase both captures have
     * @return the table
     */
    public Table kernels(String phase) {
        Table t = deltaTable("kernels " + phase, StringColumn.create("name"), StringColumn.create("category"),
                StringColumn.create("subcategory"), StringColumn.create("change"));
        DoubleColumn aMean = DoubleColumn.create("a_mean_us");
        DoubleColumn bMean = DoubleColumn.create("b_mean_us");
        for (KernelDelta k : phase(phase).kernels()) {
            t.stringColumn("name").append(k.name());
            t.stringColumn("category").append(k.category());
            t.stringColumn("subcategory").append(k.subcategory());
            t.stringColumn("change").append(k.change());
            MsPerStepDelta ms = k.time();
            appendDelta(t, ms.aMsPerStep(), ms.bMsPerStep(), ms.deltaMs(), ms.deltaPct(), ms.ci95Ms(), ms.noiseFloorMs(),
                    ms.significant(), k.calls().aCallsPerStep(), k.calls().bCallsPerStep());
            Capture.append(aMean, k.calls().aMeanUs());
            Capture.append(bMean, k.calls().bMeanUs());
        }
        return TableReader.pretty(t.addColumns(aMean, bMean));
    }

    /**
     * Collectives per type, both sides as their reports compute them. Columns: type, a_calls_per_step,
     * b_calls_per_step, a_mean_us, b_mean_us, delta_mean_us, a_busbw_gbps, b_busbw_gbps, a_wait_ms_per_step,
     * b_wait_ms_per_step, a_transfer_ms_per_step, b_transfer_ms_per_step (missing where a side lacks the
     * type or the value).
     *
     * @param phase a phase both captures have
     * @return the table
     */
    public Table collectives(String phase) {
        StringColumn type = StringColumn.create("type");
        String[] names = {"calls_per_step", "mean_us", "busbw_gbps", "wait_ms_per_step", "transfer_ms_per_step"};
        DoubleColumn[][] sides = new DoubleColumn[2][names.length];
        for (int s = 0; s < 2; s++) {
            for (int i = 0; i < names.length; i++) {
                sides[s][i] = DoubleColumn.create((s == 0 ? "a_" : "b_") + names[i]);
            }
        }
        DoubleColumn deltaMean = DoubleColumn.create("delta_mean_us");
        for (CollectiveDelta c : phase(phase).collectives()) {
            type.append(c.type());
            CollectiveSide[] both = {c.a(), c.b()};
            for (int s = 0; s < 2; s++) {
                CollectiveSide x = both[s];
                Capture.append(sides[s][0], x == null ? null : x.callsPerStep());
                Capture.append(sides[s][1], x == null ? null : x.meanUs());
                Capture.append(sides[s][2], x == null ? null : x.busbwGbps());
                Capture.append(sides[s][3], x == null ? null : x.waitMsPerStep());
                Capture.append(sides[s][4], x == null ? null : x.transferMsPerStep());
            }
            Capture.append(deltaMean, c.deltaMeanUs());
        }
        return TableReader.pretty(Table.create("collectives " + phase, type, sides[0][0], sides[1][0], sides[0][1], sides[1][1],
                deltaMean, sides[0][2], sides[1][2], sides[0][3], sides[1][3], sides[0][4], sides[1][4]));
    }

    /**
     * Both captures' categories in one long table, for A-versus-B charts
     * ({@code Charts.stackedBars(d.breakdown("decode"), "capture", "ms_per_step", "category")}). Columns:
     * capture (the capture's name, or {@code A}/{@code B} when both have the same name), category, label,
     * ms_per_step, calls_per_step.
     *
     * @param phase a phase both captures have
     * @return the table
     */
    public Table breakdown(String phase) {
        StringColumn capture = StringColumn.create("capture");
        StringColumn cat = StringColumn.create("category");
        StringColumn label = StringColumn.create("label");
        DoubleColumn ms = DoubleColumn.create("ms_per_step");
        DoubleColumn calls = DoubleColumn.create("calls_per_step");
        List<CategoryDelta> cats = phase(phase).categories();
        for (int side = 0; side < 2; side++) {
            for (CategoryDelta c : cats) {
                double v = side == 0 ? c.aMsPerStep() : c.bMsPerStep();
                if (v <= 0) {
                    continue;
                }
                capture.append(side == 0 ? nameA() : nameB());
                cat.append(c.id());
                label.append(c.label());
                ms.append(v);
                calls.append(side == 0 ? c.aCallsPerStep() : c.bCallsPerStep());
            }
        }
        return TableReader.pretty(Table.create("breakdown " + phase, capture, cat, label, ms, calls));
    }

    /**
     * Both captures' steps of a phase in one table ({@link Capture#steps(String)} with a first column
     * {@code capture}, named as in {@link #breakdown}). Needs both captures still open.
     *
     * @param phase a phase both captures have
     * @return the table
     */
    public Table steps(String phase) {
        phase(phase);
        Table ta = a.steps(phase);
        Table tb = b.steps(phase);
        ta.insertColumn(0, StringColumn.create("capture", java.util.Collections.nCopies(ta.rowCount(), nameA())));
        tb.insertColumn(0, StringColumn.create("capture", java.util.Collections.nCopies(tb.rowCount(), nameB())));
        return ta.append(tb).setName("steps " + phase);
    }

    /**
     * Writes diff.json, diff.html and diff.md (with PNG charts) into {@code dir}.
     *
     * @param dir the output directory (created when missing)
     * @return the files written
     */
    public List<Path> write(Path dir) {
        return write(dir, null, true, true, true);
    }

    /**
     * Writes the chosen diff outputs, as {@code steptrace diff} does.
     *
     * @param dir       the output directory (created when missing)
     * @param templates a directory of Freemarker templates overriding the built-in ones, or null
     * @param json      write diff.json
     * @param html      write diff.html
     * @param markdown  write diff.md and its charts
     * @return the files written: diff.json, diff.html, diff.md, PNGs
     */
    public List<Path> write(Path dir, Path templates, boolean json, boolean html, boolean markdown) {
        try {
            Files.createDirectories(dir);
            return DiffWriters.writeAll(model, dir, templates, json, html, markdown);
        } catch (IOException e) {
            throw new SteptraceException("cannot write the diff into " + dir + ": " + Messages.io(e), e);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Diff " + model.a().name() + " -> " + model.b().name());
        model.phases().forEach((p, d) -> sb.append(", ").append(p).append(": ").append(d.verdict()));
        return sb.toString();
    }

    // ---- helpers ----

    private String nameA() {
        return a.name().equals(b.name()) ? "A" : a.name();
    }

    private String nameB() {
        return a.name().equals(b.name()) ? "B" : b.name();
    }

    private PhaseDiff phase(String phase) {
        PhaseDiff p = model.phases().get(phase);
        if (p == null) {
            throw new SteptraceException("no " + phase + " phase in both captures (compared: "
                    + (model.phases().isEmpty() ? "none" : String.join(", ", model.phases().keySet())) + ")");
        }
        return p;
    }

    private static Table deltaTable(String name, StringColumn... keys) {
        Table t = Table.create(name, keys);
        t.addColumns(DoubleColumn.create("a_ms_per_step"), DoubleColumn.create("b_ms_per_step"),
                DoubleColumn.create("delta_ms"), DoubleColumn.create("delta_pct"), DoubleColumn.create("ci95_lo_ms"),
                DoubleColumn.create("ci95_hi_ms"), DoubleColumn.create("noise_floor_ms"),
                BooleanColumn.create("significant"), DoubleColumn.create("a_calls_per_step"),
                DoubleColumn.create("b_calls_per_step"));
        return TableReader.pretty(t);
    }

    private static void appendDelta(Table t, double a, double b, double delta, Double pct, List<Double> ci,
                                    double floor, boolean significant, double aCalls, double bCalls) {
        t.doubleColumn("a_ms_per_step").append(a);
        t.doubleColumn("b_ms_per_step").append(b);
        t.doubleColumn("delta_ms").append(delta);
        Capture.append(t.doubleColumn("delta_pct"), pct);
        Capture.append(t.doubleColumn("ci95_lo_ms"), ci == null || ci.isEmpty() ? null : ci.get(0));
        Capture.append(t.doubleColumn("ci95_hi_ms"), ci == null || ci.size() < 2 ? null : ci.get(1));
        t.doubleColumn("noise_floor_ms").append(floor);
        t.booleanColumn("significant").append(significant);
        t.doubleColumn("a_calls_per_step").append(aCalls);
        t.doubleColumn("b_calls_per_step").append(bCalls);
    }
}
