package dev.steptrace.report;

import dev.steptrace.common.Futures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * Draws a document's charts the way every steptrace document embeds them: inline SVG for HTML, PNG
 * files beside it for Markdown. A chart that cannot be drawn (no fonts on the machine, an XChart
 * error) becomes a note in the document instead of a failure of the whole document.
 */
public final class ChartDrawing {
    /**
     * Draws the charts of every document being written, one chart a task on every core: the HTML and
     * Markdown writers run at the same time and their charts differ in cost, so sharing the cores chart
     * by chart keeps both busy until the last one.
     */
    private static final ExecutorService DRAWERS = Executors.newFixedThreadPool(
            Runtime.getRuntime().availableProcessors(), r -> {
                Thread t = new Thread(r, "steptrace-charts");
                t.setDaemon(true);
                return t;
            });

    private ChartDrawing() {}

    /** A chart with the id that names it in the page (and its PNG file) and its title. */
    public interface Named {
        String id();

        String title();

        Chart<?, ?> chart();
    }

    /** Builds a document's charts; may throw when a chart cannot be built. */
    public interface Builder {
        List<? extends Named> build() throws IOException;
    }

    /**
     * What a document gets: its charts by id, the files written (PNG only), and a note when the charts
     * could not be drawn (null otherwise).
     */
    public record Drawn(Map<String, ReportView.ChartRef> refs, List<Path> files, String note) {
        /** No charts (turned off, or not drawable), with the note to show, if any. */
        public static Drawn none(String note) {
            return new Drawn(Map.of(), List.of(), note);
        }
    }

    /** The charts as inline SVG markup, for HTML. */
    public static Drawn inline(Builder charts) {
        return draw(charts, null);
    }

    /** The charts as {@code chart-<id>.png} files in {@code dir}, for Markdown. */
    public static Drawn files(Builder charts, Path dir) {
        return draw(charts, dir);
    }

    private static Drawn draw(Builder charts, Path dir) {
        String unavailable = ReportCharts.unavailableReason();
        if (unavailable != null) {
            return Drawn.none(unavailable);
        }
        Map<String, ReportView.ChartRef> refs = new LinkedHashMap<>();
        List<Path> files = new ArrayList<>();
        try {
            List<Future<ReportView.ChartRef>> drawing = new ArrayList<>();
            for (Named c : charts.build()) {
                if (dir == null) {
                    drawing.add(DRAWERS.submit(() -> new ReportView.ChartRef(c.id(), c.title(), ReportCharts.svg(c), "")));
                } else {
                    String file = "chart-" + c.id().replaceAll("[^A-Za-z0-9_-]", "_") + ".png";
                    Path png = dir.resolve(file);
                    files.add(png);
                    drawing.add(DRAWERS.submit(() -> {
                        ReportCharts.png(c, png);
                        return new ReportView.ChartRef(c.id(), c.title(), "", file);
                    }));
                }
            }
            for (Future<ReportView.ChartRef> f : drawing) {
                ReportView.ChartRef ref = done(f);
                refs.put(ref.id(), ref);
            }
        } catch (VirtualMachineError e) {
            throw e;
        } catch (IOException | RuntimeException | Error e) {
            for (Path f : files) {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // a stray PNG beside the document is harmless
                }
            }
            return Drawn.none("charts could not be drawn: " + e);
        }
        return new Drawn(refs, files, null);
    }

    /** A drawn chart, or what its drawing threw. */
    private static ReportView.ChartRef done(Future<ReportView.ChartRef> f) throws IOException {
        return Futures.result(f, "drawing charts");
    }
}
