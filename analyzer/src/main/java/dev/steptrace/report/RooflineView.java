package dev.steptrace.report;

import dev.steptrace.report.BottleneckReport.BelowBound;
import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.DevicePeakRates;
import dev.steptrace.report.BottleneckReport.ModelFloor;
import dev.steptrace.report.BottleneckReport.PhaseRoofline;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import dev.steptrace.report.BottleneckReport.Roofline;
import dev.steptrace.report.ReportView.ChartRef;
import dev.steptrace.report.ReportView.KernelName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * A phase's "how close to the hardware" section for the templates (docs/roofline.md), every number
 * formatted: the GPU and the peaks used with their source, the model file, per category the measured
 * time beside the floor and the achieved rates against the bound, the kernels furthest below their
 * bound, the floors' derivations, and the roofline chart.
 *
 * @param peaks   the rates used, in one line; "" when unknown
 * @param modelInfo the model file's name and decode workload; "" without one
 */
public record RooflineView(String device, boolean peaksKnown, String peaks, String source, String sourceUrl,
                           String note, String modelInfo, List<Row> categories, List<Below> below,
                           List<Floor> floors, ChartRef chart) {

    /** A category: measured ms, the model's floor and measured / floor, the trace's (or model's) rates. */
    public record Row(String id, String label, String color, String ms, String floorMs, String overFloor,
                      String tflops, String gbps, String intensity, String bound, String pctOfBound, String source,
                      String coverage) {}

    public record Below(KernelName name, String category, String color, String ms, String boundMs, String lostMs,
                       String pctOfBound, String bound, String tflops, String gbps, String intensity) {}

    public record Floor(String category, String bytes, String flops, String floorMs, String bound, String derivation) {}

    /** The section for {@code p}, or null when its report has no roofline. */
    static RooflineView of(PhaseSummary p, Function<String, KernelName> names, ChartRef chart) {
        PhaseRoofline r = p.roofline();
        if (r == null) {
            return null;
        }
        List<Row> rows = new ArrayList<>();
        List<CategoryShare> cats = new ArrayList<>(p.categories() == null ? List.of() : p.categories());
        cats.sort(Comparator.comparingDouble(CategoryShare::msPerStep).reversed()
                .thenComparingInt(c -> ReportCategories.order(c.id())));
        for (CategoryShare c : cats) {
            Roofline x = c.roofline();
            rows.add(new Row(c.id(), ReportCategories.label(c.id(), c.label()), ReportCategories.color(c.id()),
                    Fmt.ms(c.msPerStep()), Fmt.rate(x.floorMsPerStep()), Fmt.times(x.measuredOverFloor()),
                    Fmt.rate(x.achievedTflops()), Fmt.rate(x.achievedGbps()), Fmt.rate(x.arithmeticIntensity()),
                    Fmt.text(x.bound()), Fmt.pct(x.pctOfBound()), Fmt.text(x.workSource()), Fmt.pct(x.workCoveragePct())));
        }
        List<Below> below = new ArrayList<>();
        for (BelowBound b : r.furthestBelowBound() == null ? List.<BelowBound>of() : r.furthestBelowBound()) {
            below.add(new Below(names.apply(b.name()), ReportCategories.label(b.category(), null),
                    ReportCategories.color(b.category()), Fmt.rate(b.msPerStep()), Fmt.rate(b.boundMsPerStep()),
                    Fmt.rate(b.lostMsPerStep()), Fmt.pct(b.pctOfBound()), Fmt.text(b.bound()), Fmt.rate(b.achievedTflops()),
                    Fmt.rate(b.achievedGbps()), Fmt.rate(b.arithmeticIntensity())));
        }
        List<Floor> floors = new ArrayList<>();
        for (ModelFloor f : r.floors() == null ? List.<ModelFloor>of() : r.floors()) {
            floors.add(new Floor(ReportCategories.label(f.category(), null), Fmt.si(f.bytes(), "B"),
                    f.flops() > 0 ? Fmt.si(f.flops(), "FLOP") : Fmt.NA, Fmt.rate(f.floorMs()), Fmt.text(f.bound()),
                    Fmt.text(f.derivation())));
        }
        DevicePeakRates d = r.peaks();
        String model = r.model() == null ? "" : r.model() + " (decode batch " + r.modelBatch() + " over "
                + r.modelContext() + " tokens of context)";
        // The source link goes into Markdown and HTML as written: a user's file gets it only when it is a plain URL.
        String url = d == null || d.sourceUrl() == null || !d.sourceUrl().matches("https?://[^\\s()<>\"'`\\[\\]]+") ? ""
                : d.sourceUrl();
        return new RooflineView(Fmt.text(r.device()), d != null, d == null ? "" : peaks(d), d == null ? "" : d.source(),
                url, d == null || d.note() == null ? "" : d.note(), model, rows, below, floors, chart);
    }

    private static String peaks(DevicePeakRates d) {
        List<String> parts = new ArrayList<>();
        parts.add(d.label() + ":");
        add(parts, d.bf16Tflops(), " TFLOP/s bf16");
        add(parts, d.fp16Tflops(), " fp16");
        add(parts, d.fp8Tflops(), " fp8");
        add(parts, d.int8Tops(), " TOP/s int8");
        add(parts, d.hbmGbps(), " GB/s memory");
        if (d.interconnectGbps() != null) {
            parts.add(Fmt.rate(d.interconnectGbps()) + " GB/s " + Fmt.text(d.interconnect()) + " (both directions)");
        }
        return String.join(" · ", parts).replaceFirst(": · ", ": ");
    }

    private static void add(List<String> parts, Double v, String unit) {
        if (v != null) {
            parts.add(Fmt.rate(v) + unit);
        }
    }
}
