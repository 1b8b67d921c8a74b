package dev.steptrace.report;

import dev.steptrace.common.OutputFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes {@code report.md} (GitHub-flavored Markdown, template {@value #TEMPLATE}) and its charts as
 * PNG files beside it ({@code chart-<phase>-<kind>.png}, linked relatively). Markdown escaping is on for
 * every {@code ${...}}; kernel names go in code spans ({@link Markdown}). Sees only the model.
 */
public final class MarkdownReportWriter {
    public static final String TEMPLATE = "report.md.ftl";
    public static final String FILE_NAME = "report.md";

    private final TemplateLoader templates;
    private final boolean charts;

    public MarkdownReportWriter() {
        this(TemplateLoader.builtIn(), true);
    }

    public MarkdownReportWriter(TemplateLoader templates, boolean charts) {
        this.templates = templates;
        this.charts = charts;
    }

    /** Convenience: built-in templates overridden by {@code templatesDir} when it is not null. */
    public static List<Path> write(ReportContent content, Path outDir, Path templatesDir) throws IOException {
        return new MarkdownReportWriter(new TemplateLoader(templatesDir), true).write(content, outDir);
    }

    /** Writes {@code outDir/report.md} and its PNG charts; returns the paths written, report.md first. */
    public List<Path> write(ReportContent content, Path outDir) throws IOException {
        Files.createDirectories(outDir);
        ChartDrawing.Drawn drawn = charts ? ChartDrawing.files(() -> ReportCharts.build(content), outDir)
                : ChartDrawing.Drawn.none(null);
        ReportView view = ReportView.of(content, drawn.refs(), drawn.note());
        Map<String, Object> model = HtmlReportWriter.model(content, view);
        model.put("md", Markdown.HELPER);
        String md = templates.render(TEMPLATE, model);
        Path target = outDir.resolve(FILE_NAME);
        OutputFiles.write(target, md);
        List<Path> written = new ArrayList<>();
        written.add(target);
        written.addAll(drawn.files());
        return written;
    }
}
