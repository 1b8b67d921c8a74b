package dev.steptrace.report;

import dev.steptrace.common.Phase;
import dev.steptrace.common.StepPart;
import dev.steptrace.report.CaptureDiff.CategoryDelta;
import dev.steptrace.report.CaptureDiff.PhaseDiff;
import java.awt.BasicStroke;
import java.awt.Color;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The diff's charts, per phase, drawn like the report's ({@link ReportCharts}: same styling, the
 * categories' fixed colors, inline SVG for HTML and PNG for Markdown): A and B side by side as stacked
 * bars of their step time by part (of kernel ms per step by category where a side has no step time), and each
 * category's change B - A with its 95% interval.
 */
public final class DiffCharts {
    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    /** One chart; {@code id} is {@code diff-<phase>-bars} or {@code diff-<phase>-deltas}. */
    public record DiffChart(String id, String phase, String title, Chart<?, ?> chart) implements ChartDrawing.Named {}

    private DiffCharts() {}

    public static List<DiffChart> build(CaptureDiff diff) {
        List<DiffChart> out = new ArrayList<>();
        for (Map.Entry<String, PhaseDiff> e : diff.phases().entrySet()) {
            String label = Phase.labelOf(e.getKey());
            List<CategoryDelta> cats = e.getValue().categories() == null ? List.of() : e.getValue().categories();
            if (cats.isEmpty()) {
                continue;
            }
            CaptureDiff.StepTimeDiff step = e.getValue().stepTime();
            boolean parts = step != null && step.parts() != null && !step.parts().isEmpty();
            out.add(new DiffChart("diff-" + e.getKey() + "-bars", e.getKey(),
                    label + (parts ? ": step time by part, A and B" : ": kernel ms per step by category, A and B"),
                    parts ? stepBars(label, diff, step.parts()) : bars(label, diff, cats)));
            out.add(new DiffChart("diff-" + e.getKey() + "-deltas", e.getKey(),
                    label + ": change B − A per category, ms per step, with 95% intervals", deltas(label, cats)));
        }
        return out;
    }

    static CategoryChart bars(String phaseLabel, CaptureDiff diff, List<CategoryDelta> cats) {
        List<String> xs = aAndB(diff);
        CategoryChart chart = stackedBars(phaseLabel + ": kernel ms per step by category");
        for (CategoryDelta c : inSpecOrder(cats)) {
            chart.addSeries(ReportCategories.chartLabel(ReportCategories.label(c.id(), c.label())), xs,
                    List.of(c.aMsPerStep(), c.bMsPerStep())).setFillColor(ReportCategories.awtColor(c.id()));
        }
        return chart;
    }

    /** The two bars' labels: A and B by their captures' names. */
    private static List<String> aAndB(CaptureDiff diff) {
        return List.of("A: " + shorten(diff.a().name()), "B: " + shorten(diff.b().name()));
    }

    /** An empty chart of stacked bars in ms per step, y from 0, its legend beside it. */
    private static CategoryChart stackedBars(String title) {
        CategoryChart chart = new CategoryChartBuilder().width(760).height(440).title(title)
                .yAxisTitle("ms per step").build();
        var s = chart.getStyler();
        ReportCharts.style(s);
        s.setStacked(true);
        s.setOverlapped(false);
        s.setAvailableSpaceFill(0.55);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setPlotGridVerticalLinesVisible(false);
        s.setYAxisDecimalPattern("0.##");
        s.setYAxisMin(0.0);
        return chart;
    }

    /**
     * A and B's step time as stacked bars of its parts (work by category, exposed communication, waiting, idle),
     * so each bar's height is the step time and its kernels are the lower part of it; y from 0.
     */
    static CategoryChart stepBars(String phaseLabel, CaptureDiff diff, List<CaptureDiff.PartDelta> parts) {
        List<String> xs = aAndB(diff);
        CategoryChart chart = stackedBars(phaseLabel + ": step time by part");
        List<CaptureDiff.PartDelta> ordered = new ArrayList<>(parts);
        ordered.sort(Comparator.comparingInt(
                (CaptureDiff.PartDelta p) -> StepPart.of(p.name()).map(Enum::ordinal).orElse(StepPart.values().length)));
        for (CaptureDiff.PartDelta p : ordered) {
            chart.addSeries(ReportCategories.chartLabel(p.label()), xs, List.of(p.aMsPerStep(), p.bMsPerStep()))
                    .setFillColor(StepTimeView.awtColor(p.name()));
        }
        return chart;
    }

    /**
     * A forest plot: per category (category order, left to right) a thick vertical bar over the 95% interval
     * and a diamond at the change; the legend names each category with its change. Categories without
     * an interval show the diamond alone.
     */
    static XYChart deltas(String phaseLabel, List<CategoryDelta> cats) {
        List<CategoryDelta> ordered = inSpecOrder(cats);
        XYChart chart = new XYChartBuilder().width(900).height(420)
                .title(phaseLabel + ": change B − A per category (95% interval)")
                .yAxisTitle("Δ ms per step").build();
        var s = chart.getStyler();
        ReportCharts.style(s);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setXAxisTicksVisible(false);
        s.setPlotGridVerticalLinesVisible(false);
        s.setYAxisDecimalPattern("0.###");
        s.setXAxisMin(-0.6);
        s.setXAxisMax(ordered.size() - 0.4);
        s.setMarkerSize(11);
        double lo = 0;
        double hi = 0;
        for (CategoryDelta c : ordered) {
            lo = Math.min(lo, c.ci95Ms() != null ? Math.min(c.ci95Ms().get(0), c.deltaMs()) : c.deltaMs());
            hi = Math.max(hi, c.ci95Ms() != null ? Math.max(c.ci95Ms().get(1), c.deltaMs()) : c.deltaMs());
        }
        double pad = Math.max((hi - lo) * 0.08, 1e-4);
        s.setYAxisMin(lo - pad);
        s.setYAxisMax(hi + pad);
        XYSeries zero = chart.addSeries("zero", new double[] {-0.6, ordered.size() - 0.4}, new double[] {0, 0});
        zero.setLineColor(new Color(0x555555));
        zero.setLineWidth(1f);
        zero.setMarker(SeriesMarkers.NONE);
        zero.setShowInLegend(false);
        for (int i = 0; i < ordered.size(); i++) {
            CategoryDelta c = ordered.get(i);
            Color color = ReportCategories.awtColor(c.id());
            String name = String.format(Locale.ROOT, "%s  %s ms%s",
                    ReportCategories.chartLabel(ReportCategories.label(c.id(), c.label())), Fmt.signedMs(c.deltaMs()),
                    c.significant() ? " *" : "");
            if (c.ci95Ms() != null) {
                XYSeries bar = chart.addSeries(name, new double[] {i, i},
                        new double[] {c.ci95Ms().get(0), c.ci95Ms().get(1)});
                bar.setLineColor(color);
                bar.setLineWidth(10f);
                bar.setLineStyle(new BasicStroke(10f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
                bar.setMarker(SeriesMarkers.NONE);
                XYSeries point = chart.addSeries(name + " ", new double[] {i}, new double[] {c.deltaMs()});
                point.setMarker(SeriesMarkers.DIAMOND);
                point.setMarkerColor(new Color(0x222222));
                point.setShowInLegend(false);
            } else {
                XYSeries point = chart.addSeries(name, new double[] {i}, new double[] {c.deltaMs()});
                point.setMarker(SeriesMarkers.DIAMOND);
                point.setMarkerColor(color);
                point.setLineColor(color);
            }
        }
        return chart;
    }

    private static List<CategoryDelta> inSpecOrder(List<CategoryDelta> cats) {
        return cats.stream().sorted(Comparator.comparingInt((CategoryDelta c) -> ReportCategories.order(c.id()))
                .thenComparing(CategoryDelta::id)).toList();
    }

    private static String shorten(String name) {
        String n = name == null ? "" : name;
        return n.length() <= 28 ? n : n.substring(0, 27) + "…";
    }
}
