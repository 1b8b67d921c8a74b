package dev.steptrace.decide;

import dev.steptrace.report.Fmt;
import dev.steptrace.report.ReportCharts;
import java.awt.Color;
import java.awt.Font;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The memo's charts, drawn from the decision alone with XChart and encoded like the report's
 * ({@link ReportCharts#svg} for HTML, {@link ReportCharts#png} for Markdown): projected speedup per
 * option against the threshold and the Amdahl bound, and, with {@code --bench}, output throughput by
 * concurrency.
 */
final class DecisionCharts {
    private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 15);
    private static final Font LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    private static final Font TICK_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
    private static final Color ADMISSIBLE = new Color(0x2ca02c);
    private static final Color EXCLUDED = new Color(0xb0b4ba);
    private static final Color THRESHOLD = new Color(0xd62728);
    private static final Color BOUND = new Color(0x1f77b4);

    private DecisionCharts() {}

    static List<ReportCharts.ReportChart> build(Decision d) {
        List<ReportCharts.ReportChart> out = new ArrayList<>();
        CategoryChart options = options(d);
        if (options != null) {
            out.add(new ReportCharts.ReportChart("decision-options", d.facts().tax().phase(), null,
                    "Projected speedup per option against the threshold", options));
        }
        XYChart bench = bench(d);
        if (bench != null) {
            out.add(new ReportCharts.ReportChart("decision-bench", d.facts().tax().phase(), null,
                    "Output throughput by concurrency (vLLM bench serve)", bench));
        }
        return out;
    }

    static CategoryChart options(Decision d) {
        if (d.options().isEmpty()) {
            return null;
        }
        List<String> xs = new ArrayList<>();
        List<Double> admissible = new ArrayList<>();
        List<Double> excluded = new ArrayList<>();
        List<Double> threshold = new ArrayList<>();
        List<Double> amdahl = new ArrayList<>();
        for (Decision.OptionResult o : d.options()) {
            Double speedup = o.projected().projectedSpeedup();
            double v = speedup == null ? 0 : speedup;
            xs.add(o.id() + (speedup == null ? " (n/a)" : ""));
            admissible.add(o.judgement().admissible() ? v : 0.0);
            excluded.add(o.judgement().admissible() ? 0.0 : v);
            threshold.add(d.question().minSpeedup());
            amdahl.add(d.facts().share().amdahlMaxSpeedup() == null ? 0.0 : d.facts().share().amdahlMaxSpeedup());
        }
        CategoryChart chart = new CategoryChartBuilder().width(900).height(380)
                .title("Projected speedup of " + d.facts().tax().phase() + " per option")
                .xAxisTitle("option").yAxisTitle("speedup (x)").build();
        var s = chart.getStyler();
        ReportCharts.style(s);
        s.setOverlapped(true);
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setLegendLayout(Styler.LegendLayout.Horizontal);
        s.setPlotGridVerticalLinesVisible(false);
        s.setYAxisDecimalPattern("0.##");
        s.setYAxisMin(0.0);
        s.setAvailableSpaceFill(0.55);
        chart.addSeries("admissible", xs, admissible).setFillColor(ADMISSIBLE);
        chart.addSeries("excluded or not evaluated", xs, excluded).setFillColor(EXCLUDED);
        CategorySeries t = chart.addSeries("threshold " + Fmt.speedup(d.question().minSpeedup()), xs, threshold);
        t.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        t.setLineColor(THRESHOLD);
        t.setMarker(SeriesMarkers.NONE);
        t.setLineWidth(2f);
        if (d.facts().share().amdahlMaxSpeedup() != null) {
            CategorySeries a = chart.addSeries("Amdahl bound " + Fmt.speedup(d.facts().share().amdahlMaxSpeedup()), xs, amdahl);
            a.setChartCategorySeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
            a.setLineColor(BOUND);
            a.setMarker(SeriesMarkers.NONE);
            a.setLineWidth(1.5f);
        }
        return chart;
    }

    static XYChart bench(Decision d) {
        if (d.bench() == null) {
            return null;
        }
        List<Decision.BenchRun> runs = d.bench().runs().stream()
                .filter(r -> r.maxConcurrency() != null && r.maxConcurrency() > 0 && r.outputThroughput() != null).toList();
        if (runs.size() < 2) {
            return null;
        }
        XYChart chart = new XYChartBuilder().width(900).height(380)
                .title("Output throughput by concurrency").xAxisTitle("max concurrency").yAxisTitle("output tokens/s").build();
        var s = chart.getStyler();
        ReportCharts.style(s);
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setLegendLayout(Styler.LegendLayout.Horizontal);
        s.setXAxisLogarithmic(true);
        s.setXAxisDecimalPattern("0");
        s.setYAxisDecimalPattern("0");
        s.setYAxisMin(0.0);
        s.setMarkerSize(7);
        XYSeries series = chart.addSeries("output throughput", runs.stream().map(r -> (double) r.maxConcurrency()).toList(),
                runs.stream().map(Decision.BenchRun::outputThroughput).toList());
        series.setLineColor(BOUND);
        series.setMarkerColor(BOUND);
        series.setMarker(SeriesMarkers.CIRCLE);
        series.setLineWidth(2f);
        Integer plateau = d.bench().plateauConcurrency();
        if (plateau != null) {
            runs.stream().filter(r -> plateau.equals(r.maxConcurrency())).findFirst().ifPresent(r -> {
                XYSeries p = chart.addSeries("plateau at " + plateau, List.of((double) plateau), List.of(r.outputThroughput()));
                p.setMarker(SeriesMarkers.DIAMOND);
                p.setMarkerColor(THRESHOLD);
                p.setLineColor(THRESHOLD);
                p.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            });
        }
        return chart;
    }

}
