package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Overlap;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * How much of each step's communication runs under other GPU work (docs/reports.md, "Overlap"), into
 * the working table {@code t_step_overlap(file_id, rank, step, phase, phase_index, comm_ns, hidden_ns)} (kept in the
 * store's {@code step_metrics}):
 * {@code comm_ns} is the union of the step's communication kernels (categories allreduce and
 * comm_other), {@code hidden_ns} the part of it during which some other operation (a kernel, memcpy
 * or memset on another stream) ran too; the rest is exposed. By inclusion-exclusion, hidden = |comm|
 * + |other| - |comm or other|, the last being the step's busy time ({@code t_step_metrics.busy_ns}).
 * One stream runs its operations one after another, so a file whose operations are all on one stream
 * hides nothing and its other work is not measured. The SQL is stage {@code 50-overlap}.
 */
final class OverlapMetrics {
    private OverlapMetrics() {}

    /**
     * Per phase: communication per step and its hidden part (means over ranks), from the analysis as the
     * store keeps it (query {@code overlap}: {@code step_metrics.comm_ns, hidden_ns}); phases without communication absent.
     */
    static Map<String, Overlap> summarize(StoredAnalysis a) throws SQLException {
        Map<String, Overlap> out = new HashMap<>();
        a.query("overlap", Map.of(), rs -> {
            double comm = rs.getDouble(2);
            double hidden = rs.getDouble(3);
            out.put(rs.getString(1), new Overlap(comm, hidden, comm - hidden, 100 * hidden / comm));
        });
        return out;
    }
}
