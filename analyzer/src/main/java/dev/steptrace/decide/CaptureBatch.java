package dev.steptrace.decide;

import dev.steptrace.analysis.CaptureAnalysis;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The batch size of a capture's steps in one phase, from vLLM's step annotations
 * ({@code execute_context_N(tokens)_generation_M(tokens)}: N + M sequences), read from the steps the
 * analysis already found (its {@code t_steps} table: no second pass over the trace). Steps of
 * different sizes give the most common size, and the memo says how many steps had it.
 *
 * @param batch   the most common batch size, or null when the capture does not say
 * @param steps   steps of the phase with that batch size (summed over ranks)
 * @param total   steps of the phase with a vLLM annotation (summed over ranks)
 * @param example one annotation name with that batch size
 */
public record CaptureBatch(Integer batch, int steps, int total, String example) {
    static final Pattern VLLM = Pattern.compile("^execute(?:_\\d+)?_context_(\\d+)\\((.*)\\)_generation_(\\d+)\\((.*)\\)$");

    public static final CaptureBatch UNKNOWN = new CaptureBatch(null, 0, 0, null);

    public static CaptureBatch of(CaptureAnalysis analysis, String phase) throws SQLException {
        Map<Integer, int[]> counts = new TreeMap<>();
        Map<Integer, String> examples = new TreeMap<>();
        try (PreparedStatement ps = analysis.connection().prepareStatement(
                "SELECT name, count(*) FROM t_steps WHERE phase = ? GROUP BY name ORDER BY name")) {
            ps.setString(1, phase);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Matcher m = VLLM.matcher(rs.getString(1));
                    if (!m.matches()) {
                        continue;
                    }
                    long n = Long.parseLong(m.group(1)) + Long.parseLong(m.group(3));
                    if (n <= 0 || n > Integer.MAX_VALUE) {
                        continue;
                    }
                    counts.computeIfAbsent((int) n, k -> new int[1])[0] += rs.getInt(2);
                    examples.putIfAbsent((int) n, rs.getString(1));
                }
            }
        }
        if (counts.isEmpty()) {
            return UNKNOWN;
        }
        int total = counts.values().stream().mapToInt(c -> c[0]).sum();
        Map.Entry<Integer, int[]> best = null;
        for (Map.Entry<Integer, int[]> e : counts.entrySet()) {
            if (best == null || e.getValue()[0] > best.getValue()[0]) {
                best = e;
            }
        }
        return new CaptureBatch(best.getKey(), best.getValue()[0], total, examples.get(best.getKey()));
    }
}
