package dev.steptrace.report;

import dev.steptrace.common.OutputFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes the index of several reports ({@link ReportIndex}): index.json, index.html (self-contained,
 * HTML auto-escaping, template {@value #HTML_TEMPLATE}) and index.md (template {@value #MD_TEMPLATE}),
 * beside the reports' folders. Templates come from the built-in set or {@code --templates DIR}.
 */
public final class IndexWriter {
    public static final String HTML_TEMPLATE = "index.html.ftl";
    public static final String MD_TEMPLATE = "index.md.ftl";

    private IndexWriter() {}

    /** Writes the chosen outputs into {@code dir}; returns the paths written. */
    public static List<Path> write(ReportIndex index, Path dir, Path templatesDir, boolean json, boolean html,
                                   boolean markdown) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        if (json) {
            Path file = dir.resolve("index.json");
            OutputFiles.write(file, ReportJson.toJson(index) + "\n");
            written.add(file);
        }
        TemplateLoader templates = html || markdown ? new TemplateLoader(templatesDir) : null;
        List<Row> rows = index.captures().stream().map(IndexWriter::row).toList();
        if (html) {
            Path file = dir.resolve("index.html");
            OutputFiles.write(file, templates.render(HTML_TEMPLATE, Map.of("index", index, "rows", rows)));
            written.add(file);
        }
        if (markdown) {
            Path file = dir.resolve("index.md");
            OutputFiles.write(file, templates.render(MD_TEMPLATE,
                    Map.of("index", index, "rows", rows, "md", Markdown.HELPER)));
            written.add(file);
        }
        return written;
    }

    /**
     * One capture's row as the templates print it ({@code href}: the report's relative path, percent-encoded); the
     * step time, its largest part, the pace rank, kernel time and the top category are those of its first phase in
     * report order (decode, prefill, mixed, unknown).
     */
    public record Row(String name, String href, String ranks, String devices, String phases, String phase,
                      String stepMsPerStep, String topPart, String topPartShare, String paceRank,
                      String kernelMsPerStep, String topCategory, String topShare, int warnings) {}

    static Row row(ReportIndex.Entry e) {
        StringBuilder phases = new StringBuilder();
        e.phases().forEach((id, p) -> phases.append(phases.length() > 0 ? ", " : "").append(id).append(' ')
                .append(Fmt.count(p.steps())));
        String first = e.phases().keySet().stream().findFirst().orElse(null);
        ReportIndex.PhaseRow p = first == null ? null : e.phases().get(first);
        ReportIndex.TopCategory top = p == null ? null : p.topCategory();
        ReportIndex.TopPart part = p == null ? null : p.topPart();
        String ranks = Fmt.ranks(e.ranks()) + (e.worldSize() == null ? "" : " of " + e.worldSize());
        return new Row(e.name(), href(e.report()), ranks, e.devices() == null || e.devices().isEmpty() ? Fmt.NA
                : String.join(", ", e.devices()), phases.length() == 0 ? "none" : phases.toString(),
                Fmt.text(first), p == null ? Fmt.NA : Fmt.ms(p.stepMsPerStep()), part == null ? Fmt.NA : part.label(),
                part == null ? Fmt.NA : Fmt.pct(part.sharePct()),
                p == null || p.paceRank() == null ? Fmt.NA : p.paceRank().toString(),
                p == null ? Fmt.NA : Fmt.ms(p.kernelMsPerStep()), top == null ? Fmt.NA : top.label(),
                top == null ? Fmt.NA : Fmt.pct(top.sharePct()), e.warnings());
    }

    /** A relative path as a URL path: every byte but unreserved characters and {@code /} percent-encoded. */
    static String href(String path) {
        StringBuilder sb = new StringBuilder();
        for (byte b : path.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~/".indexOf(c) >= 0) {
                sb.append(c);
            } else {
                sb.append('%').append(String.format(java.util.Locale.ROOT, "%02X", b & 0xff));
            }
        }
        return sb.toString();
    }
}
