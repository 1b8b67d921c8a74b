package dev.steptrace.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
        HtmlReportWriter.writeAtomically(file, ReportJson.MAPPER.writeValueAsString(diff) + "\n");
        return file;
    }

    /** Writes diff.html; returns its path. */
    public static Path html(CaptureDiff diff, Path dir, TemplateLoader templates, boolean charts) throws IOException {
        Map<String, ReportView.ChartRef> refs = new LinkedHashMap<>();
        String note = null;
        if (charts) {
            note = ReportCharts.unavailableReason();
            if (note == null) {
                try {
                    for (DiffCharts.DiffChart c : DiffCharts.build(diff)) {
                        refs.put(c.id(), new ReportView.ChartRef(c.id(), c.title(), DiffCharts.svg(c), ""));
                    }
                } catch (VirtualMachineError e) {
                    throw e;
                } catch (RuntimeException | Error e) {
                    refs.clear();
                    note = "charts could not be drawn: " + e;
                }
            }
        }
        String html = templates.render(HTML_TEMPLATE, model(diff, DiffView.of(diff, refs, note)));
        Files.createDirectories(dir);
        Path target = dir.resolve(HTML_FILE);
        HtmlReportWriter.writeAtomically(target, html);
        return target;
    }

    /** Writes diff.md and its PNG charts ({@code chart-diff-<phase>-bars|deltas.png}); diff.md first. */
    public static List<Path> markdown(CaptureDiff diff, Path dir, TemplateLoader templates, boolean charts)
            throws IOException {
        Files.createDirectories(dir);
        List<Path> pngs = new ArrayList<>();
        Map<String, ReportView.ChartRef> refs = new LinkedHashMap<>();
        String note = null;
        if (charts) {
            note = ReportCharts.unavailableReason();
            if (note == null) {
                try {
                    for (DiffCharts.DiffChart c : DiffCharts.build(diff)) {
                        String file = "chart-" + c.id().replaceAll("[^A-Za-z0-9_-]", "_") + ".png";
                        Path png = dir.resolve(file);
                        DiffCharts.png(c, png);
                        pngs.add(png);
                        refs.put(c.id(), new ReportView.ChartRef(c.id(), c.title(), "", file));
                    }
                } catch (VirtualMachineError e) {
                    throw e;
                } catch (RuntimeException | Error e) {
                    refs.clear();
                    note = "charts could not be drawn: " + e;
                }
            }
        }
        Map<String, Object> model = model(diff, DiffView.of(diff, refs, note));
        model.put("md", Markdown.HELPER);
        String md = templates.render(MD_TEMPLATE, model);
        Path target = dir.resolve(MD_FILE);
        HtmlReportWriter.writeAtomically(target, md);
        List<Path> written = new ArrayList<>();
        written.add(target);
        written.addAll(pngs);
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
