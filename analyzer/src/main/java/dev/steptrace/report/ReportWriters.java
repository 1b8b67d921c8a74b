package dev.steptrace.report;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Entry points of the report outputs, and the --phase filter. */
public final class ReportWriters {
    private ReportWriters() {}

    /** The content restricted to one phase (phases, collectives, per-rank phases, step points). */
    public static ReportContent onlyPhase(ReportContent content, String phase) {
        BottleneckReport r = content.report();
        Map<String, BottleneckReport.PhaseSummary> phases = new LinkedHashMap<>();
        if (r.phases().containsKey(phase)) {
            phases.put(phase, r.phases().get(phase));
        }
        List<BottleneckReport.RankSummary> ranks = r.ranks().stream().map(rs -> {
            Map<String, BottleneckReport.RankPhase> p = new LinkedHashMap<>();
            if (rs.phases().containsKey(phase)) {
                p.put(phase, rs.phases().get(phase));
            }
            return new BottleneckReport.RankSummary(rs.rank(), p);
        }).toList();
        BottleneckReport filtered = new BottleneckReport(r.schema(), r.tool(), r.capture(), phases,
                r.collectives().stream().filter(c -> c.phase().equals(phase)).toList(), ranks, r.warnings());
        return new ReportContent(filtered, content.steps().stream().filter(s -> s.phase().equals(phase)).toList());
    }

    /**
     * Writes the chosen outputs; HTML and Markdown (each drawing its own charts, the slow part) are
     * written at the same time. Returns the paths written: report.json, report.html, report.md, PNGs.
     */
    public static List<Path> writeAll(ReportContent content, Path dir, Path templates, boolean json, boolean html,
                                      boolean markdown) throws java.io.IOException {
        java.util.concurrent.CompletableFuture<List<Path>> md = markdown
                ? java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return markdown(content, dir, templates);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })
                : java.util.concurrent.CompletableFuture.completedFuture(List.of());
        List<Path> written = new java.util.ArrayList<>();
        if (json) {
            Path file = dir.resolve("report.json");
            ReportJson.write(content.report(), file);
            written.add(file);
        }
        if (html) {
            written.add(html(content, dir, templates));
        }
        try {
            written.addAll(md.join());
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof java.io.UncheckedIOException) {
                throw ((java.io.UncheckedIOException) e.getCause()).getCause();
            }
            throw e;
        }
        return written;
    }

    /** Writes report.html; returns its path. */
    public static Path html(ReportContent content, Path dir, Path templates) throws java.io.IOException {
        return HtmlReportWriter.write(content, dir, templates);
    }

    /** Writes report.md and its PNG charts; returns their paths, report.md first. */
    public static List<Path> markdown(ReportContent content, Path dir, Path templates) throws java.io.IOException {
        return MarkdownReportWriter.write(content, dir, templates);
    }
}
