package dev.steptrace.report;

import dev.steptrace.common.OutputFiles;
import dev.steptrace.common.Phase;
import dev.steptrace.common.Stats;
import dev.steptrace.common.StepPart;
import dev.steptrace.report.BottleneckReport.CategoryShare;
import dev.steptrace.report.BottleneckReport.PartShare;
import dev.steptrace.report.BottleneckReport.PhaseSummary;
import dev.steptrace.report.BottleneckReport.RankSummary;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.PieChart;
import org.knowm.xchart.PieChartBuilder;
import org.knowm.xchart.PieSeries;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.PieStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The report's charts, drawn with XChart from the model alone: per phase, the category shares (a
 * donut), each rank's step time by part (stacked bars, one per rank, idle time included), and step time
 * and kernel time over the steps (medians over ranks, the kernel time's min-max band around it, readable
 * at 64 ranks; y from 0). Categories keep their category order and fixed color ({@link ReportCategories}),
 * step-time parts theirs ({@link StepTimeView#color}).
 *
 * <p>HTML embeds them as inline SVG ({@link #svg}); Markdown links PNG files ({@link #png}). Drawing
 * needs AWT in headless mode (set here unless the JVM was started with a choice) and at least one
 * font known to fontconfig (Debian: {@code fontconfig fonts-dejavu-core}); a machine without fonts
 * gets a report without charts and a note saying why ({@link #unavailableReason}), never a failure.
 */
public final class ReportCharts {
    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }


    public enum Kind {
        SHARES("shares"), RANKS("ranks"), STEPS("steps"), ROOFLINE("roofline");

        private final String id;

        Kind(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }
    }

    /** One chart: {@code id} is {@code <phase>-<kind>}, unique in a report. */
    public record ReportChart(String id, String phase, Kind kind, String title, Chart<?, ?> chart)
            implements ChartDrawing.Named {}

    private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 15);
    private static final Font LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    private static final Font TICK_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);

    /** The per-step chart's median line, and its min-max band (the same blue, translucent). */
    private static final Color MEDIAN = new Color(0x1f77b4);
    private static final Color BAND = new Color(0x1f, 0x77, 0xb4, 0x48);
    /** The per-step chart's step-time line, above the kernel time. */
    private static final Color STEP = new Color(0x33, 0x33, 0x33);

    private ReportCharts() {}

    /** Null when charts can be drawn here; else one line saying why not and what to install. */
    public static String unavailableReason() {
        try {
            java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(4, 4, java.awt.image.BufferedImage.TYPE_INT_ARGB);
            java.awt.Graphics2D g = img.createGraphics();
            try {
                g.setFont(LABEL_FONT);
                g.getFontMetrics().stringWidth("0");
                new java.awt.font.TextLayout("ms", LABEL_FONT, g.getFontRenderContext()).getOutline(null);
            } finally {
                g.dispose();
            }
            return null;
        } catch (VirtualMachineError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            return "charts could not be drawn (" + e.getClass().getSimpleName()
                    + (e.getMessage() != null ? ": " + dev.steptrace.common.Messages.firstLine(e.getMessage()) : "")
                    + "); Java needs fontconfig and a font, e.g. Debian's fontconfig and fonts-dejavu-core";
        }
    }

    /** Every chart of the report, phase by phase (the model's order: decode first). */
    public static List<ReportChart> build(ReportContent content) {
        List<ReportChart> charts = new ArrayList<>();
        BottleneckReport r = content.report();
        for (String phase : ReportView.orderedPhases(r.phases().keySet())) {
            PhaseSummary p = r.phases().get(phase);
            String label = Phase.labelOf(phase);
            if (p.categories() != null && !p.categories().isEmpty()) {
                charts.add(new ReportChart(phase + "-shares", phase, Kind.SHARES,
                        label + ": share of kernel time by category", shares(label, p)));
            }
            CategoryChart ranks = rankStepTimes(label, phase, r.ranks());
            if (ranks != null) {
                charts.add(new ReportChart(phase + "-ranks", phase, Kind.RANKS,
                        label + ": step time per rank, by part (work, communication, waiting, idle)", ranks));
            }
            XYChart steps = steps(label, phase, content.steps());
            if (steps != null) {
                charts.add(new ReportChart(phase + "-steps", phase, Kind.STEPS,
                        label + ": step time and kernel time per step, median and range over ranks", steps));
            }
            XYChart roofline = RooflineChart.of(label, p);
            if (roofline != null) {
                charts.add(new ReportChart(phase + "-roofline", phase, Kind.ROOFLINE,
                        label + ": roofline (achieved TFLOP/s against FLOPs per byte)", roofline));
            }
        }
        return charts;
    }

    // ---- the charts ----

    static PieChart shares(String phaseLabel, PhaseSummary p) {
        double total = nullSafe(p.categories()).stream().mapToDouble(CategoryShare::msPerStep).sum();
        PieChart chart = new PieChartBuilder().width(760).height(360)
                .title(phaseLabel + ": " + Fmt.ms(total) + " ms per step").build(); // short: XChart centers it over the donut
        PieStyler s = chart.getStyler();
        style(s);
        s.setDefaultSeriesRenderStyle(PieSeries.PieSeriesRenderStyle.Donut);
        s.setDonutThickness(0.38);
        // Shares go in the legend, formatted here: XChart would format slice labels in the default locale.
        s.setLabelsVisible(false);
        s.setSumVisible(false); // XChart formats the sum in the default locale; the title carries the total
        s.setStartAngleInDegrees(90);
        s.setClockwiseDirectionType(PieStyler.ClockwiseDirectionType.CLOCKWISE);
        s.setPlotContentSize(0.9);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setCircular(true);
        for (CategoryShare c : sortedByTime(p.categories())) {
            String name = ReportCategories.label(c.id(), c.label());
            PieSeries series = chart.addSeries(name + "  " + Fmt.pct(c.sharePct()), c.msPerStep());
            series.setFillColor(ReportCategories.awtColor(c.id()));
        }
        return chart;
    }

    /**
     * Each rank's step time as stacked bars of its parts (GPU work by category, exposed communication, waiting
     * for other ranks, idle time by cause), so a rank that idles shows it; y from 0.
     */
    static CategoryChart rankStepTimes(String phaseLabel, String phase, List<RankSummary> ranks) {
        if (ranks == null) {
            return null;
        }
        List<RankSummary> withPhase = ranks.stream()
                .filter(r -> r.phases() != null && r.phases().get(phase) != null && r.phases().get(phase).stepTime() != null)
                .sorted(Comparator.comparingInt(RankSummary::rank))
                .toList();
        if (withPhase.isEmpty()) {
            return null;
        }
        // Parts with time on any rank, in the parts' order (stacking bottom-up: work, communication, idle).
        Map<StepPart, String> parts = new TreeMap<>();
        for (RankSummary r : withPhase) {
            for (PartShare p : nullSafe(r.phases().get(phase).stepTime().parts())) {
                StepPart.of(p.name()).ifPresent(part -> parts.putIfAbsent(part, p.label()));
            }
        }
        if (parts.isEmpty()) {
            return null;
        }
        List<String> xs = withPhase.stream().map(r -> Integer.toString(r.rank())).toList();
        CategoryChart chart = new CategoryChartBuilder().width(900).height(440)
                .title(phaseLabel + ": step time per rank")
                .xAxisTitle("rank").yAxisTitle("ms per step").build();
        var s = chart.getStyler();
        style(s);
        s.setStacked(true);
        s.setOverlapped(false);
        s.setAvailableSpaceFill(withPhase.size() > 32 ? 0.95 : 0.7);
        s.setXAxisLabelRotation(withPhase.size() > 32 ? 90 : 0);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setPlotGridVerticalLinesVisible(false);
        s.setYAxisDecimalPattern("0.##");
        s.setYAxisMin(0.0);
        for (Map.Entry<StepPart, String> part : parts.entrySet()) {
            List<Double> ys = new ArrayList<>(withPhase.size());
            for (RankSummary r : withPhase) {
                double v = 0;
                for (PartShare p : nullSafe(r.phases().get(phase).stepTime().parts())) {
                    if (p.name().equals(part.getKey().id())) {
                        v += p.msPerStep();
                    }
                }
                ys.add(v);
            }
            chart.addSeries(ReportCategories.chartLabel(part.getValue()), xs, ys)
                    .setFillColor(StepTimeView.awtColor(part.getKey().id()));
        }
        return chart;
    }

    static XYChart steps(String phaseLabel, String phase, List<StepPoint> steps) {
        if (steps == null) {
            return null;
        }
        // Per step index: the kernel ms of every rank, sorted; the step time's median over ranks.
        Map<Integer, List<Double>> byIndex = new TreeMap<>();
        Map<Integer, List<Double>> stepMs = new TreeMap<>();
        java.util.Set<Integer> ranks = new java.util.TreeSet<>();
        for (StepPoint sp : steps) {
            if (phase.equals(sp.phase())) {
                byIndex.computeIfAbsent(sp.index(), k -> new ArrayList<>()).add(sp.kernelMs());
                if (sp.stepMs() != null) {
                    stepMs.computeIfAbsent(sp.index(), k -> new ArrayList<>()).add(sp.stepMs());
                }
                ranks.add(sp.rank());
            }
        }
        if (byIndex.isEmpty()) {
            return null;
        }
        byIndex.values().forEach(java.util.Collections::sort);
        XYChart chart = new XYChartBuilder().width(900).height(400)
                .title(phaseLabel + (stepMs.isEmpty() ? ": kernel ms per step" : ": step time and kernel time per step"))
                .xAxisTitle("step (within the phase)").yAxisTitle("ms").build();
        var s = chart.getStyler();
        style(s);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setXAxisDecimalPattern("0");
        s.setYAxisDecimalPattern("0.##");
        s.setYAxisMin(0.0);
        List<Double> x = byIndex.keySet().stream().map(Integer::doubleValue).toList();
        if (!stepMs.isEmpty()) {
            List<Double> sx = stepMs.keySet().stream().map(Integer::doubleValue).toList();
            XYSeries step = chart.addSeries(ranks.size() > 1 ? "step time (median)" : "step time", sx,
                    stepMs.values().stream().map(v -> Stats.quantile(v, 0.5)).toList());
            step.setLineColor(STEP);
            step.setMarkerColor(STEP);
            step.setMarker(SeriesMarkers.NONE);
            step.setLineWidth(2f);
        }
        List<Double> median = byIndex.values().stream().map(v -> Stats.quantile(v, 0.5)).toList();
        if (ranks.size() > 1) {
            // The spread across ranks as one band (the max forward, the min back), readable at any rank count.
            List<Double> bx = new ArrayList<>(x);
            List<Double> by = new ArrayList<>(byIndex.values().stream().map(v -> v.get(v.size() - 1)).toList());
            List<List<Double>> values = new ArrayList<>(byIndex.values());
            for (int i = values.size() - 1; i >= 0; i--) {
                bx.add(x.get(i));
                by.add(values.get(i).get(0));
            }
            XYSeries band = chart.addSeries("min–max over " + ranks.size() + " ranks", bx, by);
            band.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.PolygonArea);
            band.setFillColor(BAND);
            band.setLineColor(BAND);
            band.setMarker(SeriesMarkers.NONE);
        }
        XYSeries line = chart.addSeries(ranks.size() > 1 ? "kernel time (median)" : "kernel time", x, median);
        line.setLineColor(MEDIAN);
        line.setMarkerColor(MEDIAN);
        line.setMarker(x.size() <= 60 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
        s.setMarkerSize(x.size() <= 60 ? 4 : 0);
        line.setLineWidth(1.5f);
        return chart;
    }

    /** The reports' look (white background, fonts, grid): shared by every chart steptrace draws, the API's included. */
    public static void style(Styler s) {
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotBackgroundColor(Color.WHITE);
        s.setPlotBorderVisible(false);
        s.setChartTitleBoxVisible(false);
        s.setChartTitleFont(TITLE_FONT);
        s.setLegendFont(LABEL_FONT);
        s.setLegendBorderColor(Color.WHITE);
        s.setLegendBackgroundColor(Color.WHITE);
        s.setChartFontColor(new Color(0x222222));
        s.setAntiAlias(true);
        s.setToolTipsEnabled(false);
        s.setChartPadding(8);
        if (s instanceof org.knowm.xchart.style.AxesChartStyler a) {
            a.setLocale(java.util.Locale.ROOT);
            a.setAxisTitleFont(LABEL_FONT);
            a.setAxisTickLabelsFont(TICK_FONT);
            a.setAxisTickLabelsColor(new Color(0x333333));
            a.setPlotGridLinesColor(new Color(0xe3e3e3));
            a.setPlotGridLinesStroke(new BasicStroke(1f));
            a.setAxisTickMarksColor(new Color(0x999999));
        }
    }

    private static List<CategoryShare> sortedByTime(List<CategoryShare> categories) {
        return nullSafe(categories).stream()
                .sorted(Comparator.comparingDouble(CategoryShare::msPerStep).reversed()
                        .thenComparingInt(c -> ReportCategories.order(c.id())))
                .toList();
    }

    private static <T> List<T> nullSafe(List<T> l) {
        return l == null ? List.of() : l;
    }

    // ---- encoding ----

    /** Writes the chart as a PNG file. */
    public static void png(ChartDrawing.Named chart, Path file) throws IOException {
        OutputFiles.write(file, out -> BitmapEncoder.saveBitmap(chart.chart(), out, BitmapEncoder.BitmapFormat.PNG));
    }

    /** Geometry attributes, whose numbers are rounded (colors, opacities and styles are left alone). */
    private static final Set<String> GEOMETRY = Set.of(
            "d", "transform", "points", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height");

    /**
     * The chart as SVG markup ready to sit inside an HTML page: no XML prolog or DOCTYPE, no namespace
     * URLs, ids prefixed with the chart's id (several charts share one page), sized by its viewBox
     * (CSS sets the width), coordinates rounded to 0.1 px (text is drawn as glyph outlines, which is
     * what makes the file font-independent, and large), and an accessible title.
     */
    public static String svg(ChartDrawing.Named chart) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(256 * 1024);
        VectorGraphicsEncoder.saveVectorGraphic(chart.chart(), buf, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        return inlineSvg(buf.toString(StandardCharsets.UTF_8), chart.id(), chart.title());
    }

    static String inlineSvg(String svg, String idPrefix, String title) {
        int start = svg.indexOf("<svg");
        if (start < 0) {
            throw new IllegalStateException("chart encoder wrote no <svg> element");
        }
        String s = svg.substring(start);
        int tagEnd = s.indexOf('>');
        String open = s.substring(0, tagEnd + 1);
        Matcher vb = Pattern.compile("viewBox=\"([^\"]+)\"").matcher(open);
        String viewBox = vb.find() ? vb.group(1) : null;
        String safeId = idPrefix.replaceAll("[^A-Za-z0-9_-]", "_");
        StringBuilder out = new StringBuilder(s.length());
        out.append("<svg class=\"chart\" role=\"img\"");
        if (viewBox != null) {
            out.append(" viewBox=\"").append(viewBox).append('"');
        }
        out.append(" aria-labelledby=\"").append(safeId).append("-title\">")
                .append("<title id=\"").append(safeId).append("-title\">").append(escapeXml(title)).append("</title>");
        rewriteBody(s, tagEnd + 1, safeId, out);
        return out.toString();
    }

    /**
     * One pass over the chart's markup after its {@code <svg>} tag (a chart's SVG is hundreds of KB):
     * {@code id="x"} becomes {@code id="prefix-x"}, {@code url(#x} and {@code href="#x} follow, the
     * numbers of geometry attributes are rounded, and a line break swallows the indentation after it.
     */
    private static void rewriteBody(String s, int from, String prefix, StringBuilder out) {
        int n = s.length();
        int i = from;
        while (i < n) {
            char ch = s.charAt(i);
            if (ch == '\n') {
                out.append('\n');
                i++;
                while (i < n && isSpace(s.charAt(i))) {
                    i++;
                }
            } else if (ch == '=' && i + 1 < n && s.charAt(i + 1) == '"') {
                int nameStart = i;
                while (nameStart > from && isWordChar(s.charAt(nameStart - 1))) {
                    nameStart--;
                }
                String name = s.substring(nameStart, i);
                int valueStart = i + 2;
                int valueEnd = s.indexOf('"', valueStart);
                if (valueEnd < 0) {
                    out.append(ch);
                    i++;
                } else if (name.equals("id") && valueEnd > valueStart) {
                    out.append("=\"").append(prefix).append('-').append(s, valueStart, valueEnd).append('"');
                    i = valueEnd + 1;
                } else if (name.equals("href") && valueEnd > valueStart + 1 && s.charAt(valueStart) == '#') {
                    out.append("=\"#").append(prefix).append('-').append(s, valueStart + 1, valueEnd).append('"');
                    i = valueEnd + 1;
                } else if (GEOMETRY.contains(name)) {
                    out.append("=\"");
                    appendRounded(s, valueStart, valueEnd, out);
                    out.append('"');
                    i = valueEnd + 1;
                } else {
                    out.append(ch);
                    i++;
                }
            } else if (ch == 'u' && s.startsWith("url(#", i)) {
                int refEnd = i + 5;
                while (refEnd < n && s.charAt(refEnd) != ')' && s.charAt(refEnd) != '"') {
                    refEnd++;
                }
                out.append("url(#");
                if (refEnd > i + 5) {
                    out.append(prefix).append('-');
                }
                i += 5;
            } else {
                out.append(ch);
                i++;
            }
        }
    }

    /**
     * {@code s[from, to)} with every decimal number ({@code -?digits.digits}) to one decimal place
     * ({@code -0.0} and {@code 3.0} become {@code 0} and {@code 3}), and line breaks swallowing the
     * indentation after them.
     */
    private static void appendRounded(String s, int from, int to, StringBuilder out) {
        int i = from;
        while (i < to) {
            char ch = s.charAt(i);
            int digits = ch == '-' ? i + 1 : i;
            int end = decimalEnd(s, digits, to);
            if (end > 0) {
                long tenths = Math.round(Double.parseDouble(s.substring(i, end)) * 10);
                if (tenths % 10 == 0) {
                    out.append(tenths / 10);
                } else {
                    out.append(tenths < 0 ? "-" : "").append(Math.abs(tenths) / 10).append('.').append(Math.abs(tenths) % 10);
                }
                i = end;
            } else if (ch == '\n') {
                out.append('\n');
                i++;
                while (i < to && isSpace(s.charAt(i))) {
                    i++;
                }
            } else {
                out.append(ch);
                i++;
            }
        }
    }

    /** The end of {@code digits.digits} starting at {@code i}, or -1 when none starts there. */
    private static int decimalEnd(String s, int i, int to) {
        int j = i;
        while (j < to && isDigit(s.charAt(j))) {
            j++;
        }
        if (j == i || j + 1 >= to || s.charAt(j) != '.' || !isDigit(s.charAt(j + 1))) {
            return -1;
        }
        j += 2;
        while (j < to && isDigit(s.charAt(j))) {
            j++;
        }
        return j;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isWordChar(char c) {
        return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    private static String escapeXml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Charts by id, in build order. */
    static Map<String, ReportChart> byId(List<ReportChart> charts) {
        Map<String, ReportChart> m = new LinkedHashMap<>();
        charts.forEach(c -> m.put(c.id(), c));
        return m;
    }
}
