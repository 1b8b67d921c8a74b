package dev.steptrace.analysis;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Per-step measurements into working tables, from {@code t_steps}, {@code t_ops_core} and {@code t_classes}:
 * <ul>
 *   <li>{@code t_step_names}: per file, step, operation name and class variant, time and calls (the one pass over
 *       every operation the sums below are made from);</li>
 *   <li>{@code t_step_metrics}: per file and step, kernel time (sum of GPU operation durations), calls,
 *       span (first start to last end), busy (union of intervals over streams), idle = span - busy,
 *       and the host gap since the previous step's last operation;</li>
 *   <li>{@code t_step_categories}: per file, step, category and subcategory, time and calls.</li>
 * </ul>
 * Each step's {@code phase_index} counts the step's position among the file's steps of that phase,
 * which is how steps are matched across ranks. The SQL is stages {@code 30-busy-time} and
 * {@code 31-step-metrics}.
 */
final class StepMetrics {
    private StepMetrics() {}

    static void build(Connection c) throws SQLException {
        SqlStage.run(c, "30-busy-time");
        SqlStage.run(c, "31-step-metrics");
    }
}
