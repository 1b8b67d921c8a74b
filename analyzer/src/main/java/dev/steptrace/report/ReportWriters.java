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
        Map<String, BottleneckReport.Phase> phases = new LinkedHashMap<>();
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

    /** Writes report.html; returns its path. */
    public static Path html(ReportContent content, Path dir, Path templates) throws java.io.IOException {
        return HtmlReportWriter.write(content, dir, templates);
    }

    /** Writes report.md and its PNG charts; returns their paths, report.md first. */
    public static List<Path> markdown(ReportContent content, Path dir, Path templates) throws java.io.IOException {
        return MarkdownReportWriter.write(content, dir, templates);
    }
}
