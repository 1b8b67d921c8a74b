package dev.steptrace.api;

import dev.steptrace.common.Messages;
import dev.steptrace.common.OutputFiles;
import dev.steptrace.report.ReportCategories;
import dev.steptrace.report.ReportCharts;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * A Tablesaw table as an XChart chart in one call, drawn like the reports' charts; the chart returned is
 * XChart's own, to bend further ({@code chart.setTitle(...)}, {@code chart.getStyler()...}) before
 * {@link #save saving} it or showing it ({@link #image}).
 *
 * <p>Columns are named; {@code y} must be numeric. Bars take any {@code x} column: its values are
 * the bars, in the table's order (numeric {@code x} values in ascending order). Rows with the same
 * {@code x} (and {@code series}) are averaged: aggregate first (SQL, or Tablesaw's {@code summarize})
 * for a sum. A series column holds the name of each row's series; numeric series are named
 * {@code "<column> <value>"} ({@code rank 0}). When the series values (or, for plain bars, the
 * {@code x} values) are the headline category ids or labels ({@code allreduce}, {@code attention},
 * ...), they keep the reports' order and colors and are shown by their labels.
 */
public final class Charts {
    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    /** Colors of series that are not categories (Tableau 10). */
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0x17becf)};

    /** Beyond this many bars, only some x labels are drawn. */
    private static final int MAX_X_LABELS = 30;

    private Charts() {}

    /**
     * Bars of {@code y} for each value of {@code x}; colored by category when {@code x} holds category ids
     * ({@code Charts.bars(capture.breakdown("decode"), "category", "ms_per_step")}).
     *
     * @param table the data
     * @param x     the column whose values are the bars
     * @param y     a numeric column: the bars' heights
     * @return the chart
     */
    public static CategoryChart bars(Table table, String x, String y) {
        Grid g = grid(table, x, y, null);
        boolean categories = isCategories(g.xs);
        CategoryChart chart = categoryChart(y + " by " + x, x, y, g.xs, g.nonNegative());
        if (categories) {
            // One series per category, each with its value at its own bar and 0 elsewhere, stacked: one
            // bar per category in the category's color.
            chart.getStyler().setStacked(true);
            chart.getStyler().setLegendVisible(false);
            for (String cat : g.xs) {
                List<Double> ys = new ArrayList<>();
                for (String other : g.xs) {
                    ys.add(other.equals(cat) ? g.value(cat, null) : 0.0);
                }
                chart.addSeries(categoryLabel(cat), g.xs, ys).setFillColor(ReportCategories.awtColor(categoryId(cat)));
            }
        } else {
            chart.getStyler().setLegendVisible(false);
            List<Double> ys = g.xs.stream().map(v -> g.value(v, null)).toList();
            chart.addSeries(y, g.xs, ys).setFillColor(PALETTE[0]);
        }
        return chart;
    }

    /**
     * Grouped bars: for each value of {@code x}, one bar per series side by side.
     *
     * @param table  the data (long format: one row per x and series)
     * @param x      the column whose values are the groups
     * @param y      a numeric column: the bars' heights
     * @param series the column naming each row's series
     * @return the chart
     */
    public static CategoryChart bars(Table table, String x, String y, String series) {
        return seriesBars(table, x, y, series, false);
    }

    /**
     * Stacked bars: for each value of {@code x}, one bar made of the series stacked bottom-up
     * ({@code Charts.stackedBars(capture.rankBreakdown("decode"), "rank", "ms_per_step", "category")}).
     * A series without a row at some {@code x} counts 0 there.
     *
     * @param table  the data (long format: one row per x and series)
     * @param x      the column whose values are the bars
     * @param y      a numeric column: the segments' heights
     * @param series the column naming each row's segment (category ids keep the reports' colors)
     * @return the chart
     */
    public static CategoryChart stackedBars(Table table, String x, String y, String series) {
        return seriesBars(table, x, y, series, true);
    }

    /**
     * One line of {@code y} over a numeric {@code x} ({@code Charts.lines(capture.steps("decode"),
     * "phase_index", "kernel_ms")}); points in ascending {@code x}.
     *
     * @param table the data
     * @param x     a numeric column
     * @param y     a numeric column
     * @return the chart
     */
    public static XYChart lines(Table table, String x, String y) {
        return lines(table, x, y, null);
    }

    /**
     * One line per series of {@code y} over a numeric {@code x}
     * ({@code Charts.lines(capture.steps("decode"), "phase_index", "kernel_ms", "rank")}).
     *
     * @param table  the data (long format)
     * @param x      a numeric column
     * @param y      a numeric column
     * @param series the column naming each row's line, or null for one line
     * @return the chart
     */
    public static XYChart lines(Table table, String x, String y, String series) {
        Column<?> xc = column(table, x);
        if (!(xc instanceof NumericColumn<?> xn)) {
            throw new SteptraceException("lines need a numeric x column; " + x + " is " + xc.type().name()
                    + " (use bars for labels)");
        }
        NumericColumn<?> yn = numeric(table, y);
        Column<?> sc = series == null ? null : column(table, series);
        Map<String, List<double[]>> points = new LinkedHashMap<>();
        for (int i = 0; i < table.rowCount(); i++) {
            if (xn.isMissing(i) || yn.isMissing(i) || (sc != null && sc.isMissing(i))) {
                continue;
            }
            String key = sc == null ? y : key(sc, i);
            points.computeIfAbsent(key, k -> new ArrayList<>()).add(new double[] {xn.getDouble(i), yn.getDouble(i)});
        }
        List<String> keys = seriesOrder(new ArrayList<>(points.keySet()), sc);
        boolean categories = sc != null && isCategories(keys);
        XYChart chart = new XYChartBuilder().width(900).height(420)
                .title(y + " by " + x + (series == null ? "" : ", per " + series))
                .xAxisTitle(x).yAxisTitle(y).build();
        XYStyler s = chart.getStyler();
        ReportCharts.style(s);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setLegendVisible(series != null);
        s.setYAxisDecimalPattern("#,##0.###");
        boolean integralX = true;
        int maxPoints = 0;
        for (List<double[]> l : points.values()) {
            maxPoints = Math.max(maxPoints, l.size());
            for (double[] p : l) {
                integralX &= p[0] == Math.rint(p[0]);
            }
        }
        s.setXAxisDecimalPattern(integralX ? "0" : "#,##0.###");
        int i = 0;
        for (String key : keys) {
            List<double[]> l = points.get(key);
            l.sort(Comparator.comparingDouble(p -> p[0]));
            XYSeries xy = chart.addSeries(categories ? categoryLabel(key) : label(sc, key),
                    l.stream().map(p -> p[0]).toList(), l.stream().map(p -> p[1]).toList());
            Color c = categories ? ReportCategories.awtColor(categoryId(key)) : PALETTE[i++ % PALETTE.length];
            xy.setLineColor(c);
            xy.setMarkerColor(c);
            xy.setMarker(maxPoints <= 60 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
            xy.setLineWidth(1.5f);
        }
        s.setMarkerSize(maxPoints <= 60 ? 5 : 0);
        return chart;
    }

    /**
     * Writes a chart to a file: PNG for a {@code .png} name, SVG for {@code .svg}. Missing directories
     * are created.
     *
     * @param chart a chart (of this class, or any XChart chart)
     * @param file  where to write; the extension picks the format
     * @return {@code file}
     * @throws SteptraceException for another extension, or when the chart cannot be drawn (no fonts)
     */
    public static Path save(Chart<?, ?> chart, Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        boolean png = name.endsWith(".png");
        if (!png && !name.endsWith(".svg")) {
            throw new SteptraceException("charts are saved as .png or .svg files, not " + file.getFileName());
        }
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            OutputFiles.write(file, out -> {
                if (png) {
                    BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
                } else {
                    VectorGraphicsEncoder.saveVectorGraphic(chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
                }
            });
            return file;
        } catch (IOException e) {
            throw new SteptraceException("cannot write the chart " + file + ": " + Messages.io(e), e);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            throw drawingFailed(e);
        }
    }

    /**
     * The chart drawn as an image. In a Jupyter notebook with the IJava kernel, a cell ending with
     * {@code Charts.image(chart)} shows the chart.
     *
     * @param chart a chart
     * @return the image
     */
    public static BufferedImage image(Chart<?, ?> chart) {
        try {
            return BitmapEncoder.getBufferedImage(chart);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            throw drawingFailed(e);
        }
    }

    // ---- bars ----

    private static CategoryChart seriesBars(Table table, String x, String y, String series, boolean stacked) {
        Grid g = grid(table, x, y, series);
        List<String> keys = seriesOrder(g.series, column(table, series));
        boolean categories = isCategories(keys);
        CategoryChart chart = categoryChart(y + " by " + x + ", per " + series, x, y, g.xs, g.nonNegative());
        CategoryStyler s = chart.getStyler();
        s.setStacked(stacked);
        int i = 0;
        for (String key : keys) {
            List<Double> ys = new ArrayList<>();
            for (String xv : g.xs) {
                Double v = g.value(xv, key);
                ys.add(v == null ? 0.0 : v);
            }
            CategorySeries cs = chart.addSeries(categories ? categoryLabel(key) : label(column(table, series), key),
                    g.xs, ys);
            cs.setFillColor(categories ? ReportCategories.awtColor(categoryId(key)) : PALETTE[i++ % PALETTE.length]);
        }
        return chart;
    }

    private static CategoryChart categoryChart(String title, String x, String y, List<String> xs, boolean fromZero) {
        if (xs.isEmpty()) {
            throw new SteptraceException("nothing to chart: no row has both " + x + " and " + y);
        }
        CategoryChart chart = new CategoryChartBuilder().width(900).height(440).title(title)
                .xAxisTitle(x).yAxisTitle(y).build();
        CategoryStyler s = chart.getStyler();
        ReportCharts.style(s);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setOverlapped(false);
        s.setPlotGridVerticalLinesVisible(false);
        s.setYAxisDecimalPattern("#,##0.###");
        if (fromZero) {
            s.setYAxisMin(0.0);
        }
        int chars = xs.stream().mapToInt(String::length).sum();
        int longest = xs.stream().mapToInt(String::length).max().orElse(0);
        if (xs.size() > MAX_X_LABELS) {
            // Many bars (positions, steps): every n-th label, upright when they are short.
            s.setXAxisMaxLabelCount(MAX_X_LABELS);
            s.setXAxisLabelRotation(longest <= 4 ? 0 : 90);
        } else {
            s.setXAxisLabelRotation(chars > 160 ? 90 : chars > 80 ? 45 : 0);
        }
        s.setAvailableSpaceFill(xs.size() > 32 ? 0.95 : 0.7);
        return chart;
    }

    /** The values of {@code y} per (x, series), averaged, with x and series in chart order. */
    private static Grid grid(Table table, String x, String y, String series) {
        Column<?> xc = column(table, x);
        NumericColumn<?> yc = numeric(table, y);
        Column<?> sc = series == null ? null : column(table, series);
        Map<String, double[]> sums = new LinkedHashMap<>();
        List<String> xs = new ArrayList<>();
        List<String> ss = new ArrayList<>();
        Map<String, Double> numericX = new LinkedHashMap<>();
        for (int i = 0; i < table.rowCount(); i++) {
            if (xc.isMissing(i) || yc.isMissing(i) || (sc != null && sc.isMissing(i))) {
                continue;
            }
            String xv = key(xc, i);
            String sv = sc == null ? "" : key(sc, i);
            if (!numericX.containsKey(xv)) {
                xs.add(xv);
                numericX.put(xv, xc instanceof NumericColumn<?> n ? n.getDouble(i) : null);
            }
            if (sc != null && !ss.contains(sv)) {
                ss.add(sv);
            }
            double[] acc = sums.computeIfAbsent(xv + '\u0000' + sv, k -> new double[2]);
            acc[0] += yc.getDouble(i);
            acc[1]++;
        }
        if (xc instanceof NumericColumn<?>) {
            xs.sort(Comparator.comparingDouble(numericX::get));
        }
        return new Grid(xs, ss, sums);
    }

    private record Grid(List<String> xs, List<String> series, Map<String, double[]> sums) {
        Double value(String x, String series) {
            double[] acc = sums.get(x + '\u0000' + (series == null ? "" : series));
            return acc == null ? null : acc[0] / acc[1];
        }

        boolean nonNegative() {
            return sums.values().stream().allMatch(acc -> acc[0] >= 0);
        }
    }

    // ---- series and categories ----

    /** Category series in the reports' order; numeric series ascending; others as they come. */
    private static List<String> seriesOrder(List<String> keys, Column<?> column) {
        List<String> out = new ArrayList<>(keys);
        if (isCategories(out)) {
            out.sort(Comparator.comparingInt((String k) -> ReportCategories.order(categoryId(k)))
                    .thenComparing(Comparator.naturalOrder()));
        } else if (column instanceof NumericColumn<?>) {
            out.sort(Comparator.comparingDouble(Double::parseDouble));
        }
        return out;
    }

    private static boolean isCategories(List<String> values) {
        return !values.isEmpty() && values.stream().allMatch(v -> categoryId(v) != null);
    }

    /** The headline category a value names (by id or label), or null. */
    private static String categoryId(String value) {
        for (ReportCategories.Category c : ReportCategories.HEADLINE) {
            if (c.id().equals(value) || c.label().equals(value)) {
                return c.id();
            }
        }
        return null;
    }

    private static String categoryLabel(String value) {
        String id = categoryId(value);
        return ReportCategories.chartLabel(ReportCategories.label(id, value));
    }

    private static String label(Column<?> column, String key) {
        return column instanceof NumericColumn<?> ? column.name() + " " + key : key;
    }

    /** A cell as a key: integral numbers without a decimal point, everything else as Tablesaw prints it. */
    private static String key(Column<?> c, int row) {
        if (c instanceof NumericColumn<?> n) {
            double d = n.getDouble(row);
            if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                return Long.toString((long) d);
            }
            return Double.toString(d);
        }
        return c.getString(row);
    }

    private static Column<?> column(Table table, String name) {
        if (name == null || !table.containsColumn(name)) {
            throw new SteptraceException("no column " + name + " in the table " + table.name() + " (columns: "
                    + table.columnNames().stream().collect(Collectors.joining(", ")) + ")");
        }
        return table.column(name);
    }

    private static NumericColumn<?> numeric(Table table, String name) {
        Column<?> c = column(table, name);
        if (!(c instanceof NumericColumn<?> n)) {
            throw new SteptraceException("column " + name + " is " + c.type().name() + ", not a number");
        }
        return n;
    }

    private static SteptraceException drawingFailed(Throwable e) {
        String why = ReportCharts.unavailableReason();
        return new SteptraceException(why != null ? why : "the chart could not be drawn: " + e, e);
    }
}
