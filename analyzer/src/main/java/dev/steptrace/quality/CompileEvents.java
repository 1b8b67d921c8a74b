package dev.steptrace.quality;

import dev.steptrace.report.Fmt;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rows of an evidence query over {@code step_compile_events} (graph-recording, recompiles, graph-breaks), by
 * phase: the steps they name and, per kind of row, each name's calls and time, in the query's order.
 */
final class CompileEvents {
    /** One phase's rows. */
    static final class Phase {
        final Set<String> steps = new LinkedHashSet<>();
        final Map<String, Map<String, long[]>> byKind = new LinkedHashMap<>();
        long phaseSteps;

        Map<String, long[]> kind(String kind) {
            return byKind.getOrDefault(kind, Map.of());
        }

        /** "name xN (T ms)" per name of {@code kind}, joined; {@code ms} whether to give the time. */
        String list(String kind, boolean ms) {
            List<String> parts = new ArrayList<>();
            kind(kind).forEach((name, v) -> parts.add(name + (v[0] > 1 ? " x" + v[0] : "")
                    + (ms ? " (" + Fmt.ms(v[1] / 1e6) + " ms)" : "")));
            return String.join(", ", parts);
        }
    }

    private final Map<String, Phase> phases = new LinkedHashMap<>();

    /**
     * Adds a row whose columns are phase, rank, step, step_name, kind, name, calls, ns (and, for graph-breaks,
     * phase_steps).
     */
    void add(ResultSet rs) throws SQLException {
        Phase p = phases.computeIfAbsent(rs.getString(1), k -> new Phase());
        String stepName = rs.getString(4);
        Object rank = rs.getObject(2);
        p.steps.add((stepName != null ? stepName : "step " + rs.getLong(3)) + (rank != null ? " of rank " + rank : ""));
        long[] v = p.byKind.computeIfAbsent(rs.getString(5), k -> new LinkedHashMap<>())
                .computeIfAbsent(rs.getString(6), k -> new long[2]);
        v[0] += rs.getLong(7);
        v[1] += rs.getLong(8);
        if (rs.getMetaData().getColumnCount() >= 9) {
            p.phaseSteps = rs.getLong(9);
        }
    }

    Map<String, Phase> phases() {
        return phases;
    }

    /** At most {@code max} of the steps, then how many more. */
    static String steps(Set<String> steps, int max) {
        List<String> all = new ArrayList<>(steps);
        return String.join(", ", all.subList(0, Math.min(max, all.size())))
                + (all.size() > max ? " and " + (all.size() - max) + " more" : "");
    }
}
