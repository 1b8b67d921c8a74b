package dev.steptrace.decide;

import dev.steptrace.common.OutputFiles;
import dev.steptrace.report.ChartDrawing;
import dev.steptrace.report.Markdown;
import dev.steptrace.report.ReportJson;
import dev.steptrace.report.TemplateLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the memo: {@code decision.json} (the {@link Decision}), {@code decision.html} (one
 * self-contained page, template {@value #HTML_TEMPLATE}, HTML auto-escaping, inline SVG charts) and
 * {@code decision.md} (template {@value #MD_TEMPLATE}, PNG charts beside it). The templates see
 * {@code view} ({@link DecisionView}), {@code decision} (raw) and, in Markdown, {@code md}.
 */
public final class DecisionWriters {
    public static final String HTML_TEMPLATE = "decision.html.ftl";
    public static final String MD_TEMPLATE = "decision.md.ftl";
    public static final String JSON_FILE = "decision.json";
    public static final String HTML_FILE = "decision.html";
    public static final String MD_FILE = "decision.md";

    private DecisionWriters() {}

    /** Writes the chosen outputs into {@code dir}; returns the paths written (JSON, HTML, Markdown, PNGs). */
    public static List<Path> write(Decision d, Scenario s, Path dir, TemplateLoader templates, boolean json, boolean html,
                                   boolean markdown, boolean charts) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        if (json) {
            Path f = dir.resolve(JSON_FILE);
            OutputFiles.write(f, ReportJson.toJson(d) + "\n");
            written.add(f);
        }
        if (html) {
            ChartDrawing.Drawn drawn = charts ? ChartDrawing.inline(() -> DecisionCharts.build(d))
                    : ChartDrawing.Drawn.none(null);
            DecisionView view = DecisionView.of(d, s, drawn.refs().get("decision-options"),
                    drawn.refs().get("decision-bench"), drawn.note());
            Path f = dir.resolve(HTML_FILE);
            OutputFiles.write(f, templates.render(HTML_TEMPLATE, model(d, view)));
            written.add(f);
        }
        if (markdown) {
            ChartDrawing.Drawn drawn = charts ? ChartDrawing.files(() -> DecisionCharts.build(d), dir)
                    : ChartDrawing.Drawn.none(null);
            DecisionView view = DecisionView.of(d, s, drawn.refs().get("decision-options"),
                    drawn.refs().get("decision-bench"), drawn.note());
            Map<String, Object> m = model(d, view);
            m.put("md", Markdown.HELPER);
            Path f = dir.resolve(MD_FILE);
            OutputFiles.write(f, templates.render(MD_TEMPLATE, m));
            written.add(f);
            written.addAll(drawn.files());
        }
        return written;
    }

    static Map<String, Object> model(Decision d, DecisionView view) {
        Map<String, Object> m = new HashMap<>();
        m.put("view", view);
        m.put("decision", d);
        return m;
    }
}
