package dev.steptrace.report;

import dev.steptrace.report.BottleneckReport.BelowBound;
import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.DevicePeakRates;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import java.awt.BasicStroke;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A phase's roofline chart (docs/roofline.md): achieved TFLOP/s against arithmetic intensity (FLOPs per
 * byte), both axes logarithmic, under the device's roofs: memory bandwidth times intensity, capped by the
 * bf16 and fp8 tensor peaks. One point per category with known FLOPs and bytes, colored as everywhere
 * else, and one per kernel furthest below its bound.
 */
final class RooflineChart {
    private static final Color ROOF = new Color(0x444444);
    private static final Color KERNEL = new Color(0x7f7f7f);

    private RooflineChart() {}

    /** The chart, or null without peaks or without a point to place. */
    static XYChart of(String phaseLabel, PhaseSummary p) {
        DevicePeakRates d = p.roofline() == null ? null : p.roofline().peaks();
        if (d == null || d.hbmGbps() == null) {
            return null;
        }
        List<double[]> categories = new ArrayList<>();
        List<CategoryShare> placed = new ArrayList<>();
        for (CategoryShare c : p.categories() == null ? List.<CategoryShare>of() : p.categories()) {
            double[] xy = point(c.roofline().arithmeticIntensity(), c.roofline().achievedTflops());
            if (xy != null) {
                categories.add(xy);
                placed.add(c);
            }
        }
        List<double[]> kernels = new ArrayList<>();
        for (BelowBound b : p.roofline().furthestBelowBound()) {
            double[] xy = point(b.arithmeticIntensity(), b.achievedTflops());
            if (xy != null) {
                kernels.add(xy);
            }
        }
        if (categories.isEmpty() && kernels.isEmpty()) {
            return null;
        }
        double bw = d.hbmGbps() / 1000; // TFLOP/s per FLOP/byte
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (double[] xy : concat(categories, kernels)) {
            lo = Math.min(lo, xy[0]);
            hi = Math.max(hi, xy[0]);
        }
        Double top = d.fp8Tflops() != null ? d.fp8Tflops() : d.bf16Tflops();
        if (top != null) {
            hi = Math.max(hi, top / bw);
        }
        lo = lo / 4;
        hi = hi * 4;
        XYChart chart = new XYChartBuilder().width(900).height(480)
                .title(phaseLabel + ": roofline on " + d.label())
                .xAxisTitle("arithmetic intensity (FLOPs per byte)").yAxisTitle("achieved TFLOP/s").build();
        var s = chart.getStyler();
        ReportCharts.style(s);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setXAxisLogarithmic(true);
        s.setYAxisLogarithmic(true);
        s.setXAxisDecimalPattern("0.###");
        s.setYAxisDecimalPattern("0.###");
        // The memory roof rises up to the highest compute roof; each compute roof runs flat from its ridge.
        double memoryEnd = top == null ? hi : Math.min(hi, top / bw);
        line(chart, "memory roof (" + Fmt.rate(d.hbmGbps()) + " GB/s)", new double[] {lo, memoryEnd},
                new double[] {lo * bw, memoryEnd * bw}, null);
        if (d.bf16Tflops() != null) {
            line(chart, "bf16 roof (" + Fmt.rate(d.bf16Tflops()) + " TFLOP/s)", new double[] {d.bf16Tflops() / bw, hi},
                    new double[] {d.bf16Tflops(), d.bf16Tflops()}, new float[] {6f, 3f});
        }
        if (d.fp8Tflops() != null) {
            line(chart, "fp8 roof (" + Fmt.rate(d.fp8Tflops()) + " TFLOP/s)", new double[] {d.fp8Tflops() / bw, hi},
                    new double[] {d.fp8Tflops(), d.fp8Tflops()}, new float[] {2f, 3f});
        }
        for (int i = 0; i < placed.size(); i++) {
            CategoryShare c = placed.get(i);
            XYSeries series = chart.addSeries(ReportCategories.chartLabel(ReportCategories.label(c.id(), c.label())),
                    new double[] {categories.get(i)[0]}, new double[] {categories.get(i)[1]});
            series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            series.setMarker(SeriesMarkers.CIRCLE);
            series.setMarkerColor(ReportCategories.awtColor(c.id()));
        }
        if (!kernels.isEmpty()) {
            XYSeries series = chart.addSeries("kernels furthest below their bound",
                    kernels.stream().mapToDouble(xy -> xy[0]).toArray(), kernels.stream().mapToDouble(xy -> xy[1]).toArray());
            series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            series.setMarker(SeriesMarkers.DIAMOND);
            series.setMarkerColor(KERNEL);
        }
        s.setMarkerSize(9);
        return chart;
    }

    private static void line(XYChart chart, String name, double[] x, double[] y, float[] dash) {
        XYSeries series = chart.addSeries(name, x, y);
        series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        series.setMarker(SeriesMarkers.NONE);
        series.setLineColor(ROOF);
        series.setLineStyle(dash == null ? new BasicStroke(1.5f)
                : new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, dash, 0f));
    }

    private static double[] point(Double intensity, Double tflops) {
        return intensity == null || tflops == null || !(intensity > 0) || !(tflops > 0) ? null : new double[] {intensity, tflops};
    }

    private static List<double[]> concat(List<double[]> a, List<double[]> b) {
        List<double[]> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
