package dev.steptrace.report;

import dev.steptrace.common.OutputFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes {@code report.html}: one self-contained file (inline CSS and SVG charts, no scripts, no
 * network) from template {@value #TEMPLATE}, with HTML auto-escaping (every kernel name is text).
 * Sees only the model, never the store.
 */
public final class HtmlReportWriter {
    public static final String TEMPLATE = "report.html.ftl";
    public static final String FILE_NAME = "report.html";

    private final TemplateLoader templates;
    private final boolean charts;

    /** Built-in templates, with charts. */
    public HtmlReportWriter() {
        this(TemplateLoader.builtIn(), true);
    }

    /**
     * @param templates where the templates come from ({@link TemplateLoader#builtIn()} or a {@code --templates} override)
     * @param charts    false to leave the charts out (faster; the tables are all there)
     */
    public HtmlReportWriter(TemplateLoader templates, boolean charts) {
        this.templates = templates;
        this.charts = charts;
    }

    /** Convenience: built-in templates overridden by {@code templatesDir} when it is not null. */
    public static Path write(ReportContent content, Path outDir, Path templatesDir) throws IOException {
        return new HtmlReportWriter(new TemplateLoader(templatesDir), true).write(content, outDir);
    }

    /** Renders and writes {@code outDir/report.html} (created if absent); returns its path. */
    public Path write(ReportContent content, Path outDir) throws IOException {
        ChartDrawing.Drawn drawn = charts ? ChartDrawing.inline(() -> ReportCharts.build(content))
                : ChartDrawing.Drawn.none(null);
        ReportView view = ReportView.of(content, drawn.refs(), drawn.note());
        String html = templates.render(TEMPLATE, model(content, view));
        Files.createDirectories(outDir);
        Path target = outDir.resolve(FILE_NAME);
        OutputFiles.write(target, html);
        return target;
    }

    static Map<String, Object> model(ReportContent content, ReportView view) {
        Map<String, Object> m = new HashMap<>();
        m.put("view", view);
        m.put("report", content.report());
        m.put("steps", content.steps() == null ? List.of() : content.steps());
        m.put("categories", ReportCategories.HEADLINE);
        return m;
    }
}
