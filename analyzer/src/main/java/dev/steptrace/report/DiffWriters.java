package dev.steptrace.report;

import dev.steptrace.common.OutputFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The diff outputs: {@code diff.json} (the {@link CaptureDiff}, docs/diff.schema.json),
 * {@code diff.html} (self-contained: inline CSS and SVG charts, HTML auto-escaping, template
 * {@value #HTML_TEMPLATE}) and {@code diff.md} (template {@value #MD_TEMPLATE}, PNG charts beside it).
 * Sees only the model, never the store. Templates come from the built-in set or {@code --templates DIR}.
 */
public final class DiffWriters {
    public static final String JSON_FILE = "diff.json";
    public static final String HTML_FILE = "diff.html";
    public static final String MD_FILE = "diff.md";
    public static final String HTML_TEMPLATE = "diff.html.ftl";
    public static final String MD_TEMPLATE = "diff.md.ftl";

    private DiffWriters() {}

    /** Writes diff.json: snake_case, nulls written out. */
    public static Path json(CaptureDiff diff, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(JSON_FILE);
        OutputFiles.write(file, ReportJson.MAPPER.writeValueAsString(diff) + "\n");
        return file;
    }

    /** Writes diff.html; returns its path. */
    public static Path html(CaptureDiff diff, Path dir, TemplateLoader templates, boolean charts) throws IOException {
        ChartDrawing.Drawn drawn = charts ? ChartDrawing.inline(() -> DiffCharts.build(diff))
                : ChartDrawing.Drawn.none(null);
        String html = templates.render(HTML_TEMPLATE, model(diff, DiffView.of(diff, drawn.refs(), drawn.note())));
        Files.createDirectories(dir);
        Path target = dir.resolve(HTML_FILE);
        OutputFiles.write(target, html);
        return target;
    }

    /** Writes diff.md and its PNG charts ({@code chart-diff-<phase>-bars|deltas.png}); diff.md first. */
    public static List<Path> markdown(CaptureDiff diff, Path dir, TemplateLoader templates, boolean charts)
            throws IOException {
        Files.createDirectories(dir);
        ChartDrawing.Drawn drawn = charts ? ChartDrawing.files(() -> DiffCharts.build(diff), dir)
                : ChartDrawing.Drawn.none(null);
        Map<String, Object> model = model(diff, DiffView.of(diff, drawn.refs(), drawn.note()));
        model.put("md", Markdown.HELPER);
        String md = templates.render(MD_TEMPLATE, model);
        Path target = dir.resolve(MD_FILE);
        OutputFiles.write(target, md);
        List<Path> written = new ArrayList<>();
        written.add(target);
        written.addAll(drawn.files());
        return written;
    }

    static Map<String, Object> model(CaptureDiff diff, DiffView view) {
        Map<String, Object> m = new HashMap<>();
        m.put("view", view);
        m.put("diff", diff);
        m.put("categories", ReportCategories.HEADLINE);
        return m;
    }

    /**
     * Writes the chosen outputs, HTML and Markdown at the same time (each draws its own charts).
     * Returns the paths written: diff.json, diff.html, diff.md, PNGs.
     */
    public static List<Path> writeAll(CaptureDiff diff, Path dir, Path templatesDir, boolean json, boolean html,
                                      boolean markdown) throws IOException {
        TemplateLoader templates = new TemplateLoader(templatesDir);
        TemplateLoader mdTemplates = new TemplateLoader(templatesDir); // one per thread, as the report does
        CompletableFuture<List<Path>> md = markdown
                ? CompletableFuture.supplyAsync(() -> {
                    try {
                        return markdown(diff, dir, mdTemplates, true);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                })
                : CompletableFuture.completedFuture(List.of());
        List<Path> written = new ArrayList<>();
        if (json) {
            written.add(json(diff, dir));
        }
        if (html) {
            written.add(html(diff, dir, templates, true));
        }
        try {
            written.addAll(md.join());
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException u) {
                throw u.getCause();
            }
            throw e;
        }
        return written;
    }
}
