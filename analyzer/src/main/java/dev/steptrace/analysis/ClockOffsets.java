package dev.steptrace.analysis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Rank clock offsets from collective instances (docs/timeline.md, "Clock alignment"). A symmetric
 * collective (all-reduce, all-gather, reduce-scatter) ends on every rank at the same moment: its
 * kernels spin until the last peer arrives, then finish the transfer together. So, for each instance
 * present on every rank, a rank's end time minus the instance's median end
 * over ranks is its clock's offset plus noise; the median over instances is the estimate, and the
 * spread of the per-instance values (10th to 90th percentile) says how well the instances agree.
 * Rooted and point-to-point collectives (broadcast, send/recv, all-to-all) do not end together and
 * are left out.
 */
public final class ClockOffsets {
    /** Collective types whose instances end together on every rank. */
    public static final List<String> SYMMETRIC_TYPES = List.of("allreduce", "all_gather", "reduce_scatter");

    private ClockOffsets() {}

    /** The kept collective instances of an analysis as {@link #estimate} reads them. */
    public static String kept(StoredAnalysis analysis) {
        return "(SELECT rank, phase, phase_index, type, k, ts_ns + dur_ns AS end_ns, transfer_ns"
                + " FROM collective_instances WHERE " + analysis.where() + ")";
    }

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
     * Estimates every rank's clock offset over the instances of one phase's steps, or of the whole
     * capture.
     *
     * @param collectives  the instances, with columns rank, phase, phase_index, type, k, end_ns, transfer_ns:
     *                     an analysis's kept ones are {@link #kept}
     * @param phase        only instances of this phase, or null for all
     * @param phaseIndexes only these steps of the phase (by {@code phase_index}), or null for all
     * @return one estimate per rank that has instances, by rank
     */
    public static List<RankClock> estimate(Connection c, String collectives, String phase,
                                           Collection<Integer> phaseIndexes) throws SQLException {
        StringBuilder where = new StringBuilder("transfer_ns IS NOT NULL AND type IN (");
        for (int i = 0; i < SYMMETRIC_TYPES.size(); i++) {
            where.append(i > 0 ? ", '" : "'").append(SYMMETRIC_TYPES.get(i)).append('\'');
        }
        where.append(')');
        if (phase != null) {
            where.append(" AND phase = ?");
        }
        if (phaseIndexes != null) {
            where.append(" AND phase_index IN (").append(phaseIndexes.isEmpty() ? "NULL"
                    : String.join(", ", phaseIndexes.stream().map(String::valueOf).toList())).append(')');
        }
        List<RankClock> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("""
                WITH inst AS (
                    SELECT rank, phase, phase_index, type, k, end_ns FROM %s c WHERE %s
                ), rel AS (
                    -- From the instance's first end: epoch nanoseconds are beyond a double's precision,
                    -- which median() computes in. Per instance by GROUP BY and a join, not by windows:
                    -- a window over as many partitions as instances costs several times more.
                    SELECT c.rank, c.phase, c.phase_index, c.type, c.k, c.end_ns - f.first_end AS e
                    FROM inst c JOIN (SELECT phase, phase_index, type, k, min(end_ns) AS first_end FROM inst
                                      GROUP BY phase, phase_index, type, k) f
                         ON f.phase IS NOT DISTINCT FROM c.phase AND f.phase_index IS NOT DISTINCT FROM c.phase_index
                        AND f.type = c.type AND f.k IS NOT DISTINCT FROM c.k
                ), ends AS (
                    SELECT r.rank, r.e - m.mid AS d
                    FROM rel r JOIN (SELECT phase, phase_index, type, k, median(e) AS mid FROM rel
                                     GROUP BY phase, phase_index, type, k) m
                         ON m.phase IS NOT DISTINCT FROM r.phase AND m.phase_index IS NOT DISTINCT FROM r.phase_index
                        AND m.type = r.type AND m.k IS NOT DISTINCT FROM r.k
                )
                -- The three quantiles from one aggregate: DuckDB keeps each quantile's values outside its
                -- memory limit, once per aggregate (docs/performance.md, "Peak RSS of 16 ranks of 2 GB");
                -- the median is the 0.5 quantile, interpolated alike.
                SELECT rank, round(q[1])::BIGINT, n, round(q[2])::BIGINT, round(q[3])::BIGINT
                FROM (SELECT rank, quantile_cont(d, [0.5, 0.1, 0.9]) AS q, count(*) AS n FROM ends GROUP BY rank)
                ORDER BY rank
                """.formatted(collectives, where))) {
            if (phase != null) {
                ps.setString(1, phase);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new RankClock(rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)));
                }
            }
        }
        return out;
    }
}
