package dev.steptrace.whatif;

import dev.steptrace.analysis.StoredAnalysis;
import dev.steptrace.common.Phase;
import dev.steptrace.common.Stats;
import dev.steptrace.common.StepSource;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
    private final StoredAnalysis analysis;
    private final List<RankEvents> ranks;
    private final Replay replay;
    private final boolean gpuAnchored;

    private WhatIf(StoredAnalysis analysis, List<RankEvents> ranks, boolean gpuAnchored) {
        this.analysis = analysis;
        this.ranks = ranks;
        this.replay = new Replay(ranks);
        this.gpuAnchored = gpuAnchored;
    }

    /**
     * The capture of a kept analysis, read for replays: every rank's events ({@code names}: with the kernels'
     * names, for changes that pick kernels by name).
     */
    public static WhatIf of(StoredAnalysis analysis, List<String> hostSyncs, boolean names) throws SQLException {
        return new WhatIf(analysis, RankEvents.load(analysis, hostSyncs, StepSource.GRAPH_LAUNCHES, names),
                analysis.stepSource().gpuAnchored());
    }

    /** A phase's projection: the step time as captured, as replayed, as projected, and Amdahl's bound (ms). */
    public record PhaseProjection(String phase, double steps, double stepMs, double replayedStepMs,
                                  double projectedStepMs, double amdahlStepMs, List<PathShare> criticalPath,
                                  List<PathShare> projectedCriticalPath) {}

    /** A part of the critical path on one rank: ms per step (mean over the phase's ranks) and share of the step. */
    public record PathShare(String part, String label, int rank, double msPerStep, double sharePct) {}

    /** Every phase's projection under {@code changes} ({@code phase} null: all), in report order. */
    public List<PhaseProjection> project(Changes changes, String phase) {
        Replay.Durations before = durations(Changes.NONE);
        Replay.Durations after = durations(changes);
        Replay.Timing t0 = replay.run(before, true);
        Replay.Timing t1 = replay.run(after, true);
        // per phase: {ranks, steps, captured, replayed, projected, removed} with the step figures as each rank's
        // mean per step summed over ranks; and the critical paths' segments summed over every rank's steps
        Map<String, double[]> sums = new TreeMap<>(Comparator.comparingInt(Phase::order).thenComparing(Comparator.naturalOrder()));
        Map<String, Map<CriticalPath.Key, Long>> paths0 = new TreeMap<>();
        Map<String, Map<CriticalPath.Key, Long>> paths1 = new TreeMap<>();
        for (int r = 0; r < ranks.size(); r++) {
            RankEvents e = ranks.get(r);
            Map<String, double[]> own = new LinkedHashMap<>();
            for (int w = 0; w < e.windows.size(); w++) {
                RankEvents.Window win = e.windows.get(w);
                if (phase != null && !phase.equals(win.phase())) {
                    continue;
                }
                int startNode = startNode(r, w);
                int end0 = w + 1 < e.windows.size() ? startNode(r, w + 1) : lastEndNode(r, w, t0);
                int end1 = w + 1 < e.windows.size() ? startNode(r, w + 1) : lastEndNode(r, w, t1);
                double[] v = own.computeIfAbsent(win.phase(), p -> new double[5]);
                v[0]++;
                v[1] += win.end() - win.start();
                v[2] += t0.time[end0] - t0.time[startNode];
                v[3] += t1.time[end1] - t1.time[startNode];
                v[4] += removed(r, win, before, after);
                add(paths0, win.phase(), CriticalPath.walk(replay, before, t0, r, end0, t0.time[startNode], true));
                add(paths1, win.phase(), CriticalPath.walk(replay, after, t1, r, end1, t1.time[startNode], true));
            }
            own.forEach((p, v) -> {
                double[] sum = sums.computeIfAbsent(p, x -> new double[6]);
                sum[0]++;
                sum[1] += v[0];
                for (int i = 1; i < 5; i++) {
                    sum[i + 1] += v[i] / v[0] / 1e6;
                }
            });
        }
        List<PhaseProjection> out = new ArrayList<>();
        sums.forEach((p, s) -> {
            double n = s[0];
            double steps = s[1];
            double replayed = s[3] / n;
            double projected = s[4] / n;
            out.add(new PhaseProjection(p, steps / n, s[2] / n, replayed, projected, s[2] / n - s[5] / n,
                    shares(paths0.get(p), steps, replayed), shares(paths1.get(p), steps, projected)));
        });
        return out;
    }

    /** Adds a walk's segments, keyed by the rank's number (the walk keys them by rank index). */
    private void add(Map<String, Map<CriticalPath.Key, Long>> into, String phase, Map<CriticalPath.Key, Long> walk) {
        Map<CriticalPath.Key, Long> m = into.computeIfAbsent(phase, x -> new TreeMap<>());
        walk.forEach((k, ns) -> m.merge(new CriticalPath.Key(k.part(), ranks.get(k.rank()).rank), ns, Long::sum));
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

    /** The node where window {@code w} of rank {@code r} starts: its annotation's start, or its first GPU op's. */
    private int startNode(int r, int w) {
        RankEvents e = ranks.get(r);
        RankEvents.Window win = e.windows.get(w);
        if (gpuAnchored && win.gpuStart() != null) {
            int k = Arrays.binarySearch(e.opStart, 0, e.ops, win.gpuStart());
            while (k > 0 && e.opStart[k - 1] == win.gpuStart()) {
                k--;
            }
            if (k >= 0) {
                return replay.opStartNode(r, k);
            }
        }
        return replay.cpuStartNode(r, marker(e, win.cpuStart()));
    }

    /** The index of the CPU marker at {@code ts}. */
    private static int marker(RankEvents e, long ts) {
        for (int j = Arrays.binarySearch(e.cpuStart, 0, e.cpu, ts); j >= 0 && j < e.cpu; j++) {
            if (e.cpuStart[j] != ts) {
                break;
            }
            if (e.cpuKind[j] == RankEvents.MARK) {
                return j;
            }
        }
        for (int j = 0; j < e.cpu; j++) {
            if (e.cpuKind[j] == RankEvents.MARK && e.cpuStart[j] == ts) {
                return j;
            }
        }
        throw new IllegalStateException("no marker at " + ts);
    }

    /** The node of the last window's end: the later of its annotation's end and its ops' last end. */
    private int lastEndNode(int r, int w, Replay.Timing t) {
        RankEvents e = ranks.get(r);
        RankEvents.Window win = e.windows.get(w);
        int best = gpuAnchored ? -1 : replay.cpuStartNode(r, lastMarker(e));
        for (int k = 0; k < e.ops; k++) {
            if (e.opStart[k] >= win.start() && (best < 0 || t.time[replay.opEndNode(r, k)] > t.time[best])) {
                best = replay.opEndNode(r, k);
            }
        }
        return best < 0 ? replay.cpuStartNode(r, lastMarker(e)) : best;
    }

    private static int lastMarker(RankEvents e) {
        for (int j = e.cpu - 1; j >= 0; j--) {
            if (e.cpuKind[j] == RankEvents.MARK) {
                return j;
            }
        }
        throw new IllegalStateException("no step markers");
    }

    /** What a change takes out of a window, wherever it sits: Amdahl's view of it (ns). */
    private long removed(int r, RankEvents.Window win, Replay.Durations before, Replay.Durations after) {
        RankEvents e = ranks.get(r);
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
    private Replay.Durations durations(Changes c) {
        int n = ranks.size();
        long[][] op = new long[n][];
        long[][] launch = new long[n][];
        long[][] gap = new long[n][];
        double[] pace = c.noStraggler() ? paceFactors() : null;
        for (int r = 0; r < n; r++) {
            RankEvents e = ranks.get(r);
            Replay.Model m = replay.models[r];
            op[r] = new long[e.ops];
            for (int k = 0; k < e.ops; k++) {
                boolean collective = m.instance[k] >= 0;
                double scale = c.scale(e.names.get(e.opNameId[k]), e.opCategory[k], e.opSub[k]);
                if (collective) {
                    Double busbw = c.busbwGbps().get(e.opType[k]);
                    long transfer = e.opTransfer[k];
                    if (busbw != null && e.opBytes[k] > 0 && busbw > 0) {
                        transfer = Math.round(busBytes(e.opType[k], e.opBytes[k], e.opGroup[k]) / busbw);
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
     * Each rank's factor to the fastest rank's pace: the fastest rank's own GPU work (its operations but the
     * collectives, whose waits and transfers are not its pace) per step over this rank's. Per rank, not per step:
     * each step's jitter stays, the gap between the ranks' paces goes.
     */
    private double[] paceFactors() {
        double[] work = new double[ranks.size()];
        double fastest = Double.MAX_VALUE;
        for (int r = 0; r < ranks.size(); r++) {
            RankEvents e = ranks.get(r);
            long sum = 0;
            for (int k = 0; k < e.ops; k++) {
                if (replay.models[r].instance[k] < 0) {
                    sum += e.opDur[k];
                }
            }
            work[r] = e.windows.isEmpty() ? 0 : (double) sum / e.windows.size();
            if (work[r] > 0) {
                fastest = Math.min(fastest, work[r]);
            }
        }
        double[] out = new double[ranks.size()];
        for (int r = 0; r < ranks.size(); r++) {
            out[r] = work[r] > 0 ? fastest / work[r] : 1;
        }
        return out;
    }

    /** A collective's bus bytes (nccl-tests' convention): its message times 2(n-1)/n for an all-reduce, (n-1)/n else. */
    static double busBytes(String type, long msgBytes, int group) {
        int n = Math.max(group, 1);
        double factor = "allreduce".equals(type) ? 2.0 * (n - 1) / n : (double) (n - 1) / n;
        return msgBytes * factor;
    }

    /** The capture's analysis this reads. */
    public StoredAnalysis analysis() {
        return analysis;
    }
}
