package dev.steptrace.timeline;

import dev.steptrace.common.Messages;
import dev.steptrace.quality.ClockOffsets;
import dev.steptrace.report.Fmt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a timeline puts its ranks on one time axis (docs/timeline.md, "Clock alignment"). Ranks on
 * different hosts read different clocks; the collective instances of the written steps tell by how
 * much ({@link ClockOffsets}). Each rank's offset is relative to the reference rank (the lowest rank
 * written), and is subtracted from every time of that rank.
 *
 * @param method        {@code collective_ends}, or {@code none} (the traces' own clocks)
 * @param referenceRank the rank whose clock the others are put on; null without alignment
 * @param boundNs       estimates further apart than this are reported in {@code warnings}
 * @param ranks         one entry per written rank
 * @param note          why there is no alignment when one was asked for; null otherwise
 */
public record ClockAlignment(String method, Integer referenceRank, long boundNs, List<RankOffset> ranks,
                             List<String> warnings, String note) {
    /** Estimates that disagree by more than this (per rank across instances, or across a host's ranks) are reported. */
    public static final long DISAGREEMENT_BOUND_NS = 50_000;

    /**
     * One rank's offset.
     *
     * @param offsetNs  what the rank's clock reads beyond the reference rank's (subtracted from its times)
     * @param instances collective instances it was estimated from (0: none, offset 0)
     * @param spreadNs  10th to 90th percentile of the per-instance estimates
     * @param host      the trace's host name, when it has one
     */
    public record RankOffset(int rank, long offsetNs, long instances, long spreadNs, String host) {}

    /** The offset to subtract from a rank's times (0 for a rank not listed). */
    public long offset(int rank) {
        for (RankOffset r : ranks) {
            if (r.rank() == rank) {
                return r.offsetNs();
            }
        }
        return 0;
    }

    /** The traces' own clocks. */
    static ClockAlignment none(List<Integer> ranks, Map<Integer, String> hosts, String note) {
        List<RankOffset> offsets = new ArrayList<>();
        for (int r : ranks) {
            offsets.add(new RankOffset(r, 0, 0, 0, hosts.get(r)));
        }
        return new ClockAlignment("none", null, DISAGREEMENT_BOUND_NS, offsets, List.of(), note);
    }

    /**
     * Offsets of the written ranks from the clocks estimated over the instances of the chosen steps (every rank's
     * instances count, written or not).
     *
     * @param clocks every rank's estimate ({@link ClockOffsets#estimate})
     * @param ranks  the written ranks, sorted
     * @param hosts  host name by rank, where the traces say
     */
    static ClockAlignment fromClocks(List<ClockOffsets.RankClock> clocks, List<Integer> ranks, Map<Integer, String> hosts) {
        Map<Integer, ClockOffsets.RankClock> byRank = new HashMap<>();
        for (ClockOffsets.RankClock clock : clocks) {
            byRank.put(clock.rank(), clock);
        }
        Integer reference = ranks.stream().filter(byRank::containsKey).findFirst().orElse(null);
        if (reference == null) {
            return none(ranks, hosts, "no all-reduce, all-gather or reduce-scatter instance ran on every rank in"
                    + " these steps, so the ranks keep their own clocks");
        }
        long base = byRank.get(reference).offsetNs();
        List<RankOffset> offsets = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<Integer> without = new ArrayList<>();
        for (int r : ranks) {
            ClockOffsets.RankClock clock = byRank.get(r);
            if (clock == null) {
                without.add(r);
                offsets.add(new RankOffset(r, 0, 0, 0, hosts.get(r)));
                continue;
            }
            offsets.add(new RankOffset(r, clock.offsetNs() - base, clock.instances(), clock.spreadNs(), hosts.get(r)));
            if (clock.spreadNs() > DISAGREEMENT_BOUND_NS) {
                warnings.add("rank " + r + ": its collective end times disagree by " + Fmt.us(clock.spreadNs() / 1e3)
                        + " µs (10th to 90th percentile of " + clock.instances() + " instances), more than "
                        + Fmt.plain(DISAGREEMENT_BOUND_NS / 1e3) + " µs: its offset is uncertain by about that much");
            }
        }
        if (!without.isEmpty()) {
            warnings.add("rank(s) " + Messages.ranges(without) + " took part in no collective instance of every"
                    + " rank: their own clocks are used");
        }
        sameHostDisagreement(offsets, warnings);
        return new ClockAlignment("collective_ends", reference, DISAGREEMENT_BOUND_NS, List.copyOf(offsets),
                List.copyOf(warnings), null);
    }

    /** Ranks of one host share its clock: offsets further apart than the bound say the estimate is off. */
    private static void sameHostDisagreement(List<RankOffset> offsets, List<String> warnings) {
        Map<String, List<RankOffset>> byHost = new TreeMap<>();
        for (RankOffset o : offsets) {
            if (o.host() != null && o.instances() > 0) {
                byHost.computeIfAbsent(o.host(), h -> new ArrayList<>()).add(o);
            }
        }
        byHost.forEach((host, list) -> {
            long min = list.stream().mapToLong(RankOffset::offsetNs).min().orElse(0);
            long max = list.stream().mapToLong(RankOffset::offsetNs).max().orElse(0);
            if (max - min > DISAGREEMENT_BOUND_NS) {
                warnings.add("ranks " + Messages.ranges(list.stream().map(RankOffset::rank).toList()) + " share host "
                        + host + " (one clock) but their offsets differ by " + Fmt.us((max - min) / 1e3) + " µs, more than "
                        + Fmt.plain(DISAGREEMENT_BOUND_NS / 1e3) + " µs");
            }
        });
    }
}
