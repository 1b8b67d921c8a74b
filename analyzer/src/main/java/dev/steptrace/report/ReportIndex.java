package dev.steptrace.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The index of the reports one {@code steptrace report DIR} wrote for a directory holding several
 * captures: index.json (schema {@value #SCHEMA}, docs/index.schema.json), index.html and index.md, one
 * row per capture with a link to its report.
 *
 * @param captures in the order the reports were written
 */
public record ReportIndex(String schema, BottleneckReport.Tool tool, List<Entry> captures) {
    public static final String SCHEMA = "steptrace.index/1";

    /**
     * One capture's row.
     *
     * @param report   its report, relative to the index (report.html, else report.md, else report.json)
     * @param phases   per phase present, in report order
     * @param warnings how many capture-quality warnings its report lists
     */
    public record Entry(String name, String path, String report, String format, int files, List<Integer> ranks,
                        Integer worldSize, List<String> devices, Map<String, PhaseRow> phases, int warnings) {}

    /**
     * A phase of a capture: steps per rank, the step time and its largest part (docs/reports.md, "Step time"), the
     * rank that sets the pace, mean kernel time per step, and the category with the most kernel time.
     *
     * @param stepMsPerStep null when the phase has no step time
     * @param topPart       the step time's largest part (a kernel category, exposed communication or idle time);
     *                      null without a step time
     * @param topCategory   null when the phase has no kernel time
     */
    public record PhaseRow(double steps, Double stepMsPerStep, TopPart topPart, Integer paceRank, Double kernelMsPerStep,
                           TopCategory topCategory) {}

    public record TopPart(String name, String label, double msPerStep, double sharePct) {}

    public record TopCategory(String id, String label, double msPerStep, double sharePct) {}

    /** The row of one capture's report, linked as {@code report} (relative to the index). */
    public static Entry entry(BottleneckReport r, String report) {
        Map<String, PhaseRow> phases = new LinkedHashMap<>();
        r.phases().forEach((id, p) -> {
            BottleneckReport.CategoryShare top = p.categories().isEmpty() ? null : p.categories().get(0);
            BottleneckReport.StepTime t = p.stepTime();
            BottleneckReport.PartShare part = t == null || t.parts().isEmpty() ? null : t.parts().get(0);
            phases.put(id, new PhaseRow(p.steps(), t == null ? null : t.msPerStep(),
                    part == null ? null : new TopPart(part.name(), part.label(), part.msPerStep(), part.sharePct()),
                    t == null ? null : t.paceRank(), p.kernelMsPerStep().mean(),
                    top == null ? null : new TopCategory(top.id(), top.label(), top.msPerStep(), top.sharePct())));
        });
        BottleneckReport.Capture c = r.capture();
        return new Entry(c.name(), c.path(), report, c.format(), c.files(), c.ranks(), c.worldSize(),
                c.devices(), phases, r.warnings().size() + (c.partialFiles() == null ? 0 : c.partialFiles().size()));
    }

    public static ReportIndex of(String toolVersion, List<Entry> entries) {
        return new ReportIndex(SCHEMA, new BottleneckReport.Tool("steptrace", toolVersion), new ArrayList<>(entries));
    }
}
