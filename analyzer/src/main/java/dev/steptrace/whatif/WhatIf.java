package dev.steptrace.whatif;

import dev.steptrace.common.PathPart;
import dev.steptrace.common.Phase;
import dev.steptrace.common.Stats;
import dev.steptrace.common.StepSource;
import dev.steptrace.store.KeptAnalysis;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Projections of a capture's step time under changed durations (docs/whatif.md): its steps replayed as a graph of
 * dependencies ({@link Replay}) as captured and as changed, each step's window measured in both, beside Amdahl's
 * bound (the step less the time the change removes, wherever it sits), with the critical paths before and after
 * ({@link CriticalPath}).
 */
public final class WhatIf {
    /**
     * GPU operations replayed at once, over all ranks: a run of steps at a time ({@link RankEvents#chunks}). A
     * replay holds about 300 bytes per operation and its launch (events, dependencies, two timings), so a run
     * stays near 100 MB of heap whatever the capture's size.
     */
    static final long CHUNK_OPS = 300_000;

    private final KeptAnalysis analysis;
    private final List<RankEvents> ranks;
    private final boolean gpuAnchored;
    private final List<String> hostSyncs;

    private WhatIf(KeptAnalysis analysis, List<RankEvents> ranks, boolean gpuAnchored, List<String> hostSyncs) {
        this.analysis = analysis;
        this.ranks = ranks;
        this.gpuAnchored = gpuAnchored;
        this.hostSyncs = hostSyncs;
    }

    /**
     * The capture of a kept analysis, read for replays: every rank's steps ({@code names}: with the kernels'
     * names, for changes that pick kernels by name); their events are read a run of steps at a time.
     *
     * @param gpuAnchored whether its steps start at their first GPU operation ({@link StepSource#gpuAnchored})
     */
    public static WhatIf of(KeptAnalysis analysis, boolean gpuAnchored, List<String> hostSyncs, boolean names)
            throws SQLException {
        List<RankEvents> ranks = RankEvents.windows(analysis);
        if (names) {
            for (RankEvents r : ranks) {
                r.loadNames(analysis);
            }
        }
        return new WhatIf(analysis, ranks, gpuAnchored, hostSyncs);
    }

    /**
     * A phase's projection: the step time as captured, as replayed, as projected, and Amdahl's bound (ms), why the
     * projection and the bound differ, and the critical paths before and after.
     */
    public record PhaseProjection(String phase, double steps, double stepMs, double replayedStepMs,
                                  double projectedStepMs, double amdahlStepMs, String difference,
                                  List<PathShare> criticalPath, List<PathShare> projectedCriticalPath) {}

    /** The projection and the bound agree within this share of the step. */
    private static final double AGREE = 0.02;

    /** A part of the critical path on one rank: ms per step (mean over the phase's ranks) and share of the step. */
    public record PathShare(String part, String label, int rank, double msPerStep, double sharePct) {}

    /** Every phase's projection under {@code changes} ({@code phase} null: all), in report order. */
    public List<PhaseProjection> project(Changes changes, String phase) throws SQLException {
        double[] pace = changes.noStraggler() ? paceFactors() : null;
        // per phase and rank index: {steps, captured, replayed, projected, removed} summed over its steps; and the
        // critical paths' segments summed over every rank's steps
        Map<String, double[][]> perRank = new HashMap<>();
        Map<String, Map<CriticalPath.Key, Long>> paths0 = new TreeMap<>();
        Map<String, Map<CriticalPath.Key, Long>> paths1 = new TreeMap<>();
        for (int[] chunk : RankEvents.chunks(ranks, CHUNK_OPS)) {
            List<RankEvents> run = new ArrayList<>();
            List<Integer> index = new ArrayList<>();
            for (int r = 0; r < ranks.size(); r++) {
                RankEvents e = ranks.get(r).slice(chunk[0], chunk[1]);
                if (e != null) {
                    e.load(analysis, hostSyncs, StepSource.GRAPH_LAUNCHES, true);
                    run.add(e);
                    index.add(r);
                }
            }
            Replay replay = new Replay(run);
            Replay.Durations before = durations(replay, Changes.NONE, null);
            Replay.Durations after = durations(replay, changes, pace == null ? null
                    : index.stream().mapToDouble(r -> pace[r]).toArray());
            Replay.Timing t0 = replay.run(before, true);
            Replay.Timing t1 = replay.run(after, true);
            for (int r = 0; r < run.size(); r++) {
                RankEvents e = run.get(r);
                for (int w = e.first; w < e.last; w++) {
                    RankEvents.Window win = e.windows.get(w);
                    if (phase != null && !phase.equals(win.phase())) {
                        continue;
                    }
                    int startNode = replay.windowStart(r, w, gpuAnchored);
                    int end0 = replay.windowEnd(r, w, t0, gpuAnchored);
                    int end1 = replay.windowEnd(r, w, t1, gpuAnchored);
                    double[] v = perRank.computeIfAbsent(win.phase(), p -> new double[ranks.size()][5])[index.get(r)];
                    v[0]++;
                    v[1] += win.end() - win.start();
                    v[2] += t0.time[end0] - t0.time[startNode];
                    v[3] += t1.time[end1] - t1.time[startNode];
                    v[4] += removed(e, r, win, before, after);
                    add(paths0, win.phase(), run, CriticalPath.walk(replay, before, t0, r, end0, t0.time[startNode], true));
                    add(paths1, win.phase(), run, CriticalPath.walk(replay, after, t1, r, end1, t1.time[startNode], true));
                }
            }
        }
        // per phase: the step figures as each rank's mean per step, averaged over the phase's ranks
        Map<String, double[]> sums = new TreeMap<>(Comparator.comparingInt(Phase::order).thenComparing(Comparator.naturalOrder()));
        perRank.forEach((p, byRank) -> {
            for (double[] v : byRank) {
                if (v[0] > 0) {
                    double[] sum = sums.computeIfAbsent(p, x -> new double[6]);
                    sum[0]++;
                    sum[1] += v[0];
                    for (int i = 1; i < 5; i++) {
                        sum[i + 1] += v[i] / v[0] / 1e6;
                    }
                }
            }
        });
        List<PhaseProjection> out = new ArrayList<>();
        sums.forEach((p, s) -> {
            double n = s[0];
            double steps = s[1];
            double replayed = s[3] / n;
            double projected = s[4] / n;
            double amdahl = s[2] / n - s[5] / n;
            List<PathShare> path1 = shares(paths1.get(p), steps, projected);
            out.add(new PhaseProjection(p, steps / n, s[2] / n, replayed, projected, amdahl,
                    difference(replayed, projected, s[2] / n, amdahl, path1), shares(paths0.get(p), steps, replayed), path1));
        });
        return out;
    }

    /**
     * Why the projection and Amdahl's bound differ, from the projected critical path: the CPU's side sets the step
     * (host-bound), ranks wait for the slowest, or the changed work ran beside work that still sets it.
     */
    static String difference(double replayed, double projected, double step, double amdahl, List<PathShare> after) {
        if (Math.abs((projected - replayed) - (amdahl - step)) <= AGREE * step) {
            return "the changed time is on the critical path: the projection and Amdahl's bound agree";
        }
        if (projected - replayed < amdahl - step) {
            return "the projection saves more than the time the change removes: the other ranks' waits for the"
                    + " slowest shrink with it";
        }
        double cpu = 0;
        double wait = 0;
        for (PathShare s : after) {
            PathPart part = PathPart.of(s.part()).orElse(PathPart.UNTRACKED);
            if (part == PathPart.CPU || part == PathPart.LAUNCH || part == PathPart.SYNC) {
                cpu += s.sharePct();
            } else if (part == PathPart.COMM_WAIT) {
                wait += s.sharePct();
            }
        }
        if (cpu >= 30) {
            return String.format(java.util.Locale.ROOT, "host-bound: the CPU's work, launches and host syncs make"
                    + " %.0f%% of the projected critical path, so GPU time taken out becomes idle time", cpu);
        }
        if (wait >= 10) {
            return String.format(java.util.Locale.ROOT, "waiting for other ranks makes %.0f%% of the projected critical"
                    + " path: time a rank saves becomes waiting for the slowest", wait);
        }
        return "off the critical path: part of the changed time ran beside work that still sets the step";
    }

    /** Adds a walk's segments, keyed by the rank's number (the walk keys them by their index in {@code run}). */
    private static void add(Map<String, Map<CriticalPath.Key, Long>> into, String phase, List<RankEvents> run,
                            Map<CriticalPath.Key, Long> walk) {
        Map<CriticalPath.Key, Long> m = into.computeIfAbsent(phase, x -> new TreeMap<>());
        walk.forEach((k, ns) -> m.merge(new CriticalPath.Key(k.part(), run.get(k.rank()).rank), ns, Long::sum));
    }

    /** A phase's path segments as ms per step (over every rank's steps) and share of {@code stepMs}, largest first. */
    private static List<PathShare> shares(Map<CriticalPath.Key, Long> sums, double steps, double stepMs) {
        List<PathShare> out = new ArrayList<>();
        if (sums == null || steps == 0) {
            return out;
        }
        sums.forEach((k, ns) -> {
            double ms = ns / 1e6 / steps;
            out.add(new PathShare(k.part().id(), k.part().label(), k.rank(), ms, stepMs > 0 ? 100 * ms / stepMs : 0));
        });
        out.sort(Comparator.comparingDouble(PathShare::msPerStep).reversed()
                .thenComparing(PathShare::part).thenComparingInt(PathShare::rank));
        return out;
    }

    /** What a change takes out of a window of rank index {@code r}, wherever it sits: Amdahl's view of it (ns). */
    private static long removed(RankEvents e, int r, RankEvents.Window win, Replay.Durations before,
                                Replay.Durations after) {
        long out = 0;
        for (int k = 0; k < e.ops; k++) {
            if (e.opStart[k] >= win.start() && e.opStart[k] < win.end()) {
                out += before.op[r][k] - after.op[r][k];
            }
        }
        for (int j = 0; j < e.cpu; j++) {
            if (e.cpuStart[j] >= win.start() && e.cpuStart[j] < win.end()) {
                out += before.cpuGap[r][j] + before.launchCost[r][j] - after.cpuGap[r][j] - after.launchCost[r][j];
            }
        }
        return out;
    }

    /** The durations the changes give: each op's (a collective's transfer), each launch's CPU cost, each CPU gap. */
    static Replay.Durations durations(Replay replay, Changes c, double[] pace) {
        List<RankEvents> ranks = replay.ranks;
        int n = ranks.size();
        long[][] op = new long[n][];
        long[][] launch = new long[n][];
        long[][] gap = new long[n][];
        for (int r = 0; r < n; r++) {
            RankEvents e = ranks.get(r);
            Replay.Model m = replay.models[r];
            op[r] = new long[e.ops];
            for (int k = 0; k < e.ops; k++) {
                boolean collective = m.instance[k] >= 0;
                double scale = c.scale(e.names.get(e.opNameId[k]), e.opCategory[k], e.opSub[k]);
                if (collective) {
                    int coll = e.opColl[k];
                    Double busbw = c.busbwGbps().get(e.collType[coll]);
                    long transfer = e.collTransfer[coll];
                    if (busbw != null && e.collBytes[coll] > 0 && busbw > 0) {
                        transfer = Math.round(busBytes(e.collType[coll], e.collBytes[coll], e.collGroup[coll]) / busbw);
                    }
                    op[r][k] = Math.round(transfer * scale);
                } else {
                    op[r][k] = Math.round(e.opDur[k] * scale * (pace == null ? 1 : pace[r]));
                }
            }
            launch[r] = new long[e.cpu];
            gap[r] = new long[e.cpu];
            for (int j = 0; j < e.cpu; j++) {
                boolean isLaunch = e.cpuKind[j] == RankEvents.LAUNCH;
                boolean run = isLaunch && m.prevCpu[j] >= 0 && e.cpuKind[m.prevCpu[j]] == RankEvents.LAUNCH;
                launch[r][j] = isLaunch && c.launchOverheadUs() != null ? Math.round(c.launchOverheadUs() * 1000) : e.cpuDur[j];
                gap[r][j] = run && c.launchOverheadUs() != null ? 0 : Math.round(m.cpuGap[j] * c.cpuScale());
            }
        }
        return new Replay.Durations(op, launch, gap);
    }

    /**
     * Each rank's factor to the fastest rank's pace (query {@code replay-pace}): the fastest rank's own GPU work
     * (its operations but the collectives matched on every rank, whose waits and transfers are not its pace) per
     * step over this rank's. Per rank, not per step: each step's jitter stays, the gap between the ranks' paces goes.
     */
    private double[] paceFactors() throws SQLException {
        Map<Integer, Double> work = new HashMap<>();
        analysis.query("replay-pace", Map.of(), rs -> work.put(rs.getInt(1), rs.getDouble(2)));
        double fastest = work.values().stream().filter(w -> w > 0).mapToDouble(Double::doubleValue).min().orElse(0);
        double[] out = new double[ranks.size()];
        for (int r = 0; r < ranks.size(); r++) {
            double own = work.getOrDefault(ranks.get(r).fileId, 0.0);
            out[r] = own > 0 ? fastest / own : 1;
        }
        return out;
    }

    /** A collective's bus bytes (nccl-tests' convention): its message times 2(n-1)/n for an all-reduce, (n-1)/n else. */
    static double busBytes(String type, long msgBytes, int group) {
        int n = Math.max(group, 1);
        double factor = "allreduce".equals(type) ? 2.0 * (n - 1) / n : (double) (n - 1) / n;
        return msgBytes * factor;
    }
}
