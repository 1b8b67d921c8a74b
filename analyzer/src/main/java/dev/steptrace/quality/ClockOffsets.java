package dev.steptrace.quality;

import dev.steptrace.store.KeptAnalysis;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rank clock offsets from the kept collective instances (docs/timeline.md, "Clock alignment"): query
 * {@code clock-offsets}, whose header says how they are estimated. The clock_offset rule reads them over the whole
 * capture; the timeline over the steps it shows.
 */
public final class ClockOffsets {
    private ClockOffsets() {}

    /**
     * One rank's estimate, in ns: what its clock reads beyond the median rank's.
     *
     * @param instances collective instances the estimate is the median over
     * @param p10Ns     10th percentile of the per-instance values
     * @param p90Ns     90th percentile of the per-instance values
     */
    public record RankClock(int rank, long offsetNs, long instances, long p10Ns, long p90Ns) {
        /** How far apart the middle 80% of the per-instance estimates lie. */
        public long spreadNs() {
            return p90Ns - p10Ns;
        }
    }

    /**
     * Every rank's clock offset over the instances of one phase's steps, or of the whole capture.
     *
     * @param phase        only instances of this phase, or null for all
     * @param phaseIndexes only these steps of the phase (by {@code phase_index}), or null for all
     * @return one estimate per rank that has instances, by rank
     */
    public static List<RankClock> estimate(KeptAnalysis a, String phase, Collection<Integer> phaseIndexes)
            throws SQLException {
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("phase", phase);
        parameters.put("phase_indexes", phaseIndexes == null ? null : List.copyOf(phaseIndexes));
        List<RankClock> out = new ArrayList<>();
        a.query("clock-offsets", parameters, rs -> out.add(new RankClock(rs.getInt(1), rs.getLong(2), rs.getLong(3),
                rs.getLong(4), rs.getLong(5))));
        return out;
    }
}
