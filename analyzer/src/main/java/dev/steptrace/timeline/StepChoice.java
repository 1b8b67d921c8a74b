package dev.steptrace.timeline;

import dev.steptrace.analysis.StoredAnalysis;
import dev.steptrace.common.Messages;
import dev.steptrace.common.Phase;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The steps a timeline shows: one phase, steps by their position in it ({@code phase_index}: steps
 * are matched across ranks by it, and the report numbers its step rows by it), from the kept analysis's
 * {@code step_metrics}.
 *
 * @param slowest the slowest step of the phase: the largest GPU span on any rank
 * @param slowestSpanNs its span on that rank
 */
record StepChoice(String phase, List<Integer> steps, int slowest, long slowestSpanNs, int slowestRank) {

    /**
     * The requested steps of the phase, or its slowest step (and the steps beside it when asked).
     *
     * @throws IllegalArgumentException when the phase has no steps or a step is not in it (the message
     *                                  says what there is)
     */
    static StepChoice choose(StoredAnalysis analysis, String phase, List<Integer> requested, boolean neighbours)
            throws SQLException {
        Map<String, TreeSet<Integer>> byPhase = new TreeMap<>();
        try (PreparedStatement ps = analysis.prepare("SELECT DISTINCT phase, phase_index FROM step_metrics"
                + " WHERE capture_id = $1 AND analysis_key = $2 AND rank IS NOT NULL");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                byPhase.computeIfAbsent(rs.getString(1), p -> new TreeSet<>()).add(rs.getInt(2));
            }
        }
        if (byPhase.isEmpty()) {
            throw new IllegalArgumentException("the capture has no steps, so there is no step timeline to write");
        }
        String chosen = phase;
        if (chosen == null) {
            chosen = Phase.IDS.stream().filter(byPhase::containsKey).findFirst().orElseThrow();
        } else if (!byPhase.containsKey(chosen)) {
            throw new IllegalArgumentException("the capture has no " + chosen + " steps (it has: "
                    + String.join(", ", Phase.IDS.stream().filter(byPhase::containsKey).toList()) + ")");
        }
        TreeSet<Integer> present = byPhase.get(chosen);
        long span = 0;
        int slowest = present.first();
        int slowestRank = -1;
        try (PreparedStatement ps = analysis.prepare("""
                SELECT phase_index, span_ns, rank FROM step_metrics
                WHERE capture_id = $1 AND analysis_key = $2 AND phase = $3 AND rank IS NOT NULL AND span_ns IS NOT NULL
                ORDER BY span_ns DESC, phase_index, rank LIMIT 1
                """, chosen); ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                slowest = rs.getInt(1);
                span = rs.getLong(2);
                slowestRank = rs.getInt(3);
            }
        }
        List<Integer> steps = new ArrayList<>();
        if (requested == null || requested.isEmpty()) {
            int reach = neighbours ? 1 : 0;
            for (int i = slowest - reach; i <= slowest + reach; i++) {
                if (present.contains(i)) {
                    steps.add(i);
                }
            }
        } else {
            for (int i : new TreeSet<>(requested)) {
                if (!present.contains(i)) {
                    throw new IllegalArgumentException("no " + chosen + " step " + i + ": the " + chosen
                            + " steps are " + Messages.ranges(List.copyOf(present)));
                }
                steps.add(i);
            }
        }
        return new StepChoice(chosen, List.copyOf(steps), slowest, span, slowestRank);
    }
}
