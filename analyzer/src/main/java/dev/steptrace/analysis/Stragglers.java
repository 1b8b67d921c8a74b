package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.CategoryWait;
import dev.steptrace.report.BottleneckReport.Straggler;
import dev.steptrace.report.BottleneckReport.StragglerSpot;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who arrives late at the collectives, and how long the others wait for it (docs/reports.md,
 * "Stragglers"). A collective kernel spins until every rank has arrived, so at a matched instance
 * ({@code collective_instances}: same phase, step of the phase, type and position {@code k}) the rank with
 * the shortest kernel arrived last, and every other rank's wait ({@code wait_ns}: its duration beyond
 * the shortest) was spent waiting for it. Durations, not start times, decide: they do not depend on
 * the ranks' clocks.
 *
 * <p>The store's {@code collective_arrivals} ({@code cross-rank.sql}, {@link CollectiveMetrics}), one row
 * per instance matched on every rank: {@code instance, phase, phase_index, type, k, ranks, last_rank}
 * (ties: the lowest rank), the late rank's {@code last_file_id, last_step, last_ts_ns}, {@code
 * transfer_ns} (the shortest duration), {@code lateness_ns} (how much later than the next-latest rank it
 * arrived: the second-shortest duration minus the shortest), {@code wait_ns} (the other ranks' waits,
 * summed) and {@code after_category} (what the late rank was busy with before it arrived).
 *
 * <p>A rank is named the straggler of a phase when all three hold, so that the ordinary skew of
 * healthy ranks names nobody:
 * <ul>
 *   <li>it arrives last more often than an even share, {@code 1/ranks}, of the instances;</li>
 *   <li>it causes more than halfway between an even share and all of the phase's collective wait:
 *       at least {@code (1 + 1/ranks) / 2} of it (75% with 2 ranks, 56% with 8); at most one rank can;</li>
 *   <li>the wait it causes, per step and per waiting rank, is at least
 *       {@value #MIN_WAIT_OF_TRANSFER_PCT}% of the phase's collective transfer time per step: the
 *       collectives take that much longer than their transfers because of it.</li>
 * </ul>
 */
final class Stragglers {
    /** The caused wait must reach this share of the phase's transfer time to matter. */
    static final double MIN_WAIT_OF_TRANSFER_PCT = 10;
    /** Call sites listed for a straggler, most caused wait first. */
    static final int SPOTS = 5;

    private Stragglers() {}

    /**
     * Per phase: every rank that arrived last at least once, most caused wait first, each named straggler
     * with its call sites and what it was busy with; phases without instances absent. Reads the analysis
     * as the store keeps it ({@code collective_arrivals}, {@code step_metrics}) through the queries
     * {@code straggler-phases}, {@code straggler-ranks}, {@code straggler-spots} and
     * {@code straggler-after-categories}.
     */
    static Map<String, List<Straggler>> summarize(StoredAnalysis a) throws SQLException {
        Map<String, List<Straggler>> out = new HashMap<>();
        for (Map.Entry<String, PhaseRanks> e : ranks(a).entrySet()) {
            List<Straggler> list = new ArrayList<>(e.getValue().ranks());
            out.put(e.getKey(), list);
            PhaseTotals t = e.getValue().totals();
            double perMs = 1.0 / (t.ranks - 1) / t.steps / 1e6;
            for (int i = 0; i < list.size(); i++) {
                Straggler s = list.get(i);
                if (s.straggler()) {
                    list.set(i, new Straggler(s.rank(), true, s.lateInstances(), s.lateSharePct(),
                            s.causedWaitMsPerStep(), s.causedWaitSharePct(), spots(a, e.getKey(), s.rank(), perMs),
                            afterCategories(a, e.getKey(), s.rank(), perMs)));
                }
            }
        }
        return out;
    }

    /**
     * Per phase, the ranks that arrived last at least once, with the shares and whether each is named a
     * straggler (no call sites yet).
     */
    private static Map<String, PhaseRanks> ranks(StoredAnalysis a) throws SQLException {
        Map<String, PhaseTotals> totals = new HashMap<>();
        a.query("straggler-phases", Map.of(), rs -> totals.put(rs.getString(1), new PhaseTotals(rs.getLong(2),
                rs.getInt(3), rs.getDouble(4), rs.getDouble(5), rs.getInt(6))));
        Map<String, PhaseRanks> out = new HashMap<>();
        a.query("straggler-ranks", Map.of(), rs -> {
            String phase = rs.getString(1);
            PhaseTotals t = totals.get(phase);
            int rank = rs.getInt(2);
            long late = rs.getLong(3);
            double caused = rs.getDouble(4);
            double latePct = 100.0 * late / t.instances;
            double causedPct = t.waitNs == 0 ? 0 : 100 * caused / t.waitNs;
            double causedMs = caused / (t.ranks - 1) / t.steps / 1e6;
            double transferMs = t.transferNs / t.steps / 1e6;
            boolean straggler = latePct > 100.0 / t.ranks
                    && causedPct >= 100 * (1 + 1.0 / t.ranks) / 2
                    && causedMs >= MIN_WAIT_OF_TRANSFER_PCT / 100 * transferMs;
            out.computeIfAbsent(phase, k -> new PhaseRanks(t, new ArrayList<>())).ranks().add(new Straggler(rank,
                    straggler, late, latePct, causedMs, causedPct, List.of(), List.of()));
        });
        return out;
    }

    private record PhaseTotals(long instances, int ranks, double waitNs, double transferNs, int steps) {}

    /** A phase's totals and the ranks that arrived last at least once. */
    private record PhaseRanks(PhaseTotals totals, List<Straggler> ranks) {}

    /** The call sites (type, position in the step) where the rank causes the most wait. */
    private static List<StragglerSpot> spots(StoredAnalysis a, String phase, int rank, double perMs)
            throws SQLException {
        List<StragglerSpot> out = new ArrayList<>();
        a.query("straggler-spots", Map.of("phase", phase, "rank", rank, "spots", SPOTS), rs -> out.add(
                new StragglerSpot(rs.getString(1), rs.getInt(2), 100.0 * rs.getLong(3) / rs.getLong(4),
                        rs.getDouble(5) * perMs, rs.getString(6))));
        return out;
    }

    /** The wait the rank causes, by what it was busy with before it arrived. */
    private static List<CategoryWait> afterCategories(StoredAnalysis a, String phase, int rank, double perMs)
            throws SQLException {
        List<CategoryWait> out = new ArrayList<>();
        a.query("straggler-after-categories", Map.of("phase", phase, "rank", rank), rs -> out.add(
                new CategoryWait(rs.getString(1), rs.getDouble(2) * perMs, rs.getDouble(3))));
        return out;
    }
}
