package dev.steptrace.timeline;

import dev.steptrace.common.PathPart;
import dev.steptrace.report.ReportCategories;
import java.util.Map;

/**
 * The {@code cname} of a slice (docs/timeline.md, "Colours"). The Trace Event Format takes a colour
 * only as the name of one of the trace viewer's reserved colours, so each of the report's category
 * colours ({@link ReportCategories}) is paired with the reserved colour closest to it that no other
 * category uses. chrome://tracing honours it; the Perfetto UI ignores {@code cname} and colours a
 * slice by a hash of its name.
 */
final class SliceColors {
    /** Report colour ({@code #rrggbb}) to reserved colour name; the report's values, in its order. */
    private static final Map<String, String> BY_REPORT_COLOR = Map.ofEntries(
            Map.entry("#d62728", "terrible"),               // allreduce: red
            Map.entry("#ff7f0e", "thread_state_iowait"),    // comm_other: orange
            Map.entry("#1f77b4", "rail_response"),          // attention: blue
            Map.entry("#9467bd", "detailed_memory_dump"),   // moe_gemm: purple
            Map.entry("#2ca02c", "rail_load"),              // gemm: green
            Map.entry("#8c564b", "thread_state_unknown"),   // routing: brown
            Map.entry("#e377c2", "thread_state_uninterruptible"), // memcpy: pink
            Map.entry("#7f7f7f", "generic_work"),           // other: grey
            // a user taxonomy's own categories
            Map.entry("#bcbd22", "olive"),
            Map.entry("#17becf", "background_memory_dump"),
            Map.entry("#aec7e8", "thread_state_runnable"),
            Map.entry("#ffbb78", "rail_idle"),
            Map.entry("#98df8a", "cq_build_passed"));

    /** The wait part of a collective: time lost to a late peer. */
    static final String WAIT = "bad";
    /** The transfer part of a collective. */
    static final String TRANSFER = "good";
    /** The step's own slice. */
    static final String STEP = "grey";

    private SliceColors() {}

    /**
     * The reserved colour of a critical-path segment: a kernel category's and a collective's as their slices, a
     * wait as a collective's wait, the CPU's side and gaps in colours no category uses.
     */
    static String path(PathPart part) {
        return switch (part) {
            case COMM_WAIT -> WAIT;
            case COMM_ALLREDUCE -> category("allreduce");
            case COMM_OTHER -> category("comm_other");
            case CPU -> "yellow";
            case LAUNCH -> "startup";
            case SYNC -> "vsync_highlight_color";
            case GAP, UNTRACKED -> "white";
            default -> category(part.id());
        };
    }

    /** The reserved colour of a category's slices. */
    static String category(String categoryId) {
        return BY_REPORT_COLOR.getOrDefault(ReportCategories.color(categoryId), "generic_work");
    }
}
