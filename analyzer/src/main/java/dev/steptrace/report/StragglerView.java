package dev.steptrace.report;

import dev.steptrace.report.BottleneckReport.CategoryWait;
import dev.steptrace.report.BottleneckReport.Straggler;
import dev.steptrace.report.BottleneckReport.StragglerSpot;
import java.util.ArrayList;
import java.util.List;

/**
 * One phase's stragglers as the templates show them: a sentence that names the straggler (or says
 * that none stands out), the ranks that arrived last at some collective instances, and the call sites
 * where the straggler holds the others up most.
 *
 * @param sentence one sentence for the top of the per-rank section
 * @param named    whether a rank was named the straggler
 * @param rows     every rank that arrived last at least once, most caused wait first
 * @param spots    the straggler's call sites (empty when none is named)
 */
public record StragglerView(String sentence, boolean named, List<Row> rows, List<SpotRow> spots) {

    /** A rank that arrived last at some instances; {@code straggler} marks the named one. */
    public record Row(String rank, boolean straggler, String lateInstances, String lateShare, String causedMs,
                      String causedShare) {}

    /** A call site: the {@code index}-th collective of its type in the step (counted from 0). */
    public record SpotRow(String type, String index, String lateShare, String causedMs, String after) {}

    /** Null when the report has no straggler analysis for the phase (one rank). */
    static StragglerView of(List<Straggler> stragglers) {
        if (stragglers == null) {
            return null;
        }
        List<Row> rows = new ArrayList<>();
        Straggler named = null;
        for (Straggler s : stragglers) {
            rows.add(new Row(Integer.toString(s.rank()), s.straggler(), Long.toString(s.lateInstances()),
                    Fmt.pct(s.lateSharePct()), Fmt.ms(s.causedWaitMsPerStep()), Fmt.pct(s.causedWaitSharePct())));
            if (s.straggler() && named == null) {
                named = s;
            }
        }
        List<SpotRow> spots = new ArrayList<>();
        if (named != null) {
            for (StragglerSpot w : named.where() == null ? List.<StragglerSpot>of() : named.where()) {
                spots.add(new SpotRow(Fmt.text(w.type()), Integer.toString(w.index()), Fmt.pct(w.lateSharePct()),
                        Fmt.ms(w.causedWaitMsPerStep()), categoryLabel(w.afterCategory())));
            }
        }
        return new StragglerView(sentence(stragglers, named), named != null, rows, spots);
    }

    private static String sentence(List<Straggler> stragglers, Straggler named) {
        if (stragglers.isEmpty()) {
            return "No collective was matched across ranks in this phase, so no rank can be seen arriving late.";
        }
        if (named == null) {
            Straggler most = stragglers.get(0);
            return "No straggler: no rank arrives last often enough, and holds the others up long enough, to stand"
                    + " out from the ordinary skew between ranks (the most: rank " + most.rank() + ", "
                    + Fmt.ms(most.causedWaitMsPerStep()) + " ms per step of waiting, " + Fmt.pct(most.causedWaitSharePct())
                    + " of it).";
        }
        StringBuilder sb = new StringBuilder("Rank ").append(named.rank()).append(" arrives last at ")
                .append(Fmt.pct(named.lateSharePct())).append(" of the collectives; the others wait ")
                .append(Fmt.ms(named.causedWaitMsPerStep())).append(" ms per step for it (")
                .append(Fmt.pct(named.causedWaitSharePct())).append(" of all collective wait)");
        List<CategoryWait> after = named.afterCategories() == null ? List.of() : named.afterCategories();
        if (!after.isEmpty() && after.get(0).category() != null) {
            sb.append(after.get(0).sharePct() >= 50 ? ", most of it after " : ", the largest part after ")
                    .append(categoryLabel(after.get(0).category())).append(" (")
                    .append(Fmt.pct(after.get(0).sharePct())).append(')');
        }
        return sb.append('.').toString();
    }

    private static String categoryLabel(String id) {
        return id == null ? Fmt.NA : ReportCategories.chartLabel(ReportCategories.label(id, null));
    }
}
