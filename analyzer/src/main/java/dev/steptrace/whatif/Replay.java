package dev.steptrace.whatif;

import it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap;
import it.unimi.dsi.fastutil.ints.Int2IntRBTreeMap;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A capture's steps as a graph of dependencies, re-timed (docs/whatif.md, "The model"). Per rank: the CPU's calls
 * in order on each thread, separated by the CPU work between them; each launch call before the operations it
 * launched; each stream's operations in order; an operation that started when an operation of another stream
 * ended (and neither its launch nor its stream explains its start) after that one; each host sync after the
 * operations launched before it; across ranks, each collective instance ending once its last rank arrived, then
 * its transfer. The original capture fixes every gap and latency; {@link #run} re-times the graph with changed
 * durations, and with no change gives back the capture's own times.
 */
final class Replay {
    /** An operation starting within this of another stream's operation's end, and of nothing else, follows it. */
    private static final long CROSS_STREAM_NS = 5_000;
    /**
     * Consecutive operations of a stream may overlap by this much in a trace (microsecond timestamps rounded on
     * both ends): the later still follows the earlier, at its recorded (negative) gap.
     */
    static final long ROUNDING_NS = 1_000;

    final List<RankEvents> ranks;
    final Model[] models;
    /** Global node ids: per rank, its operations' starts and ends, then its CPU nodes' starts and ends. */
    final int[] base;
    /** Per rank, the global id of its first CPU node. */
    private final int[] cpuBase;
    final int nodes;
    /** Per collective instance, its operations: {rank index, op index} pairs. */
    final Map<Integer, int[]> instances = new HashMap<>();

    /** What the original capture fixes for one rank. */
    static final class Model {
        final RankEvents e;
        /** Per op: the CPU node that launched it (-1: none), the previous op on its stream, another stream's op it follows. */
        final int[] launch;
        final int[] prev;
        final int[] cross;
        /** Per op: the latency from its launch, the gap after its stream's previous op, after the op it follows. */
        final long[] latency;
        final long[] streamGap;
        final long[] crossGap;
        /** Per CPU node: the previous node on its thread (-1: first), the CPU work before it. */
        final int[] prevCpu;
        final long[] cpuGap;
        /** Per host sync: the operations it waits for (the last launched before it on each stream), and its return. */
        final int[][] syncDeps;
        final long[] syncTail;
        /** Per op, the collective instance it is part of across every rank (-1: none, or not on every rank). */
        final int[] instance;

        Model(RankEvents e) {
            this.e = e;
            int n = e.ops;
            launch = new int[n];
            prev = new int[n];
            cross = new int[n];
            latency = new long[n];
            streamGap = new long[n];
            crossGap = new long[n];
            instance = new int[n];
            for (int k = 0; k < n; k++) {
                instance[k] = e.instance(k);
            }
            prevCpu = new int[e.cpu];
            cpuGap = new long[e.cpu];
            syncDeps = new int[e.cpu][];
            syncTail = new long[e.cpu];
            link();
        }

        private void link() {
            RankEvents e = this.e;
            // CPU nodes in order per thread (keys kept unboxed: a run has a million nodes and more)
            Long2IntOpenHashMap lastOnThread = new Long2IntOpenHashMap();
            lastOnThread.defaultReturnValue(-1);
            for (int j = 0; j < e.cpu; j++) {
                int p = lastOnThread.put(e.cpuThread[j], j);
                prevCpu[j] = p;
                cpuGap[j] = p < 0 ? 0 : Math.max(0, e.cpuStart[j] - (e.cpuStart[p] + e.cpuDur[p]));
            }
            // each op's launch: the latest launch call with its correlation that starts before it; the calls of a
            // correlation are chained from the last back
            Long2IntOpenHashMap lastCall = new Long2IntOpenHashMap();
            lastCall.defaultReturnValue(-1);
            int[] earlierCall = new int[e.cpu];
            for (int j = 0; j < e.cpu; j++) {
                if (e.cpuKind[j] == RankEvents.LAUNCH && e.cpuCorrelation[j] != Long.MIN_VALUE) {
                    earlierCall[j] = lastCall.put(e.cpuCorrelation[j], j);
                }
            }
            Int2IntOpenHashMap lastOnStream = new Int2IntOpenHashMap();
            lastOnStream.defaultReturnValue(-1);
            for (int k = 0; k < e.ops; k++) {
                launch[k] = -1;
                if (e.opCorrelation[k] != Long.MIN_VALUE) {
                    for (int j = lastCall.get(e.opCorrelation[k]); j >= 0; j = earlierCall[j]) {
                        if (e.cpuStart[j] <= e.opStart[k]) {
                            launch[k] = j;
                            break;
                        }
                    }
                }
                int p = lastOnStream.put(e.opStream[k], k);
                // a stream runs one op at a time: an op overlapping its predecessor by more than rounding (a clock
                // quirk) does not follow it
                prev[k] = p < 0 || e.opEnd(p) > e.opStart[k] + ROUNDING_NS ? -1 : p;
                cross[k] = -1;
            }
            long latencyNs = e.launchLatencyNs;
            long gapNs = e.streamGapNs;
            // Which constraint set each op's start: the one with the least slack. The binding one keeps its gap
            // exactly, the others at most their gap, so that a replay without changes gives the capture back.
            long[] ends = new long[e.ops];
            for (int k = 0; k < e.ops; k++) {
                ends[k] = e.opEnd(k);
            }
            for (int k = 0; k < e.ops; k++) {
                long start = e.opStart[k];
                long byLaunch = launch[k] < 0 ? Long.MAX_VALUE : start - (e.cpuStart[launch[k]] + latencyNs);
                long byStream = prev[k] < 0 ? Long.MAX_VALUE : start - (ends[prev[k]] + gapNs);
                if (launch[k] >= 0) {
                    latency[k] = Math.min(start - e.cpuStart[launch[k]], latencyNs);
                }
                if (prev[k] >= 0) {
                    streamGap[k] = Math.min(start - ends[prev[k]], gapNs);
                }
                if (Math.min(byLaunch, byStream) > CROSS_STREAM_NS) {
                    int j = followed(k, ends);
                    if (j >= 0) {
                        cross[k] = j;
                        crossGap[k] = start - ends[j];
                        continue;
                    }
                }
                if (launch[k] >= 0 && (byLaunch <= byStream || prev[k] < 0)) {
                    latency[k] = start - e.cpuStart[launch[k]];
                } else if (prev[k] >= 0) {
                    streamGap[k] = start - ends[prev[k]];
                }
            }
            // host syncs: wait for the last op launched before them on each stream, the streams in id order
            Int2IntRBTreeMap launchedOnStream = new Int2IntRBTreeMap();
            int[] opsByLaunch = opsByLaunchOrder();
            int next = 0;
            for (int j = 0; j < e.cpu; j++) {
                while (next < opsByLaunch.length && e.cpuStart[launch[opsByLaunch[next]]] < e.cpuStart[j]) {
                    int k = opsByLaunch[next++];
                    if (k > launchedOnStream.getOrDefault(e.opStream[k], -1)) {
                        launchedOnStream.put(e.opStream[k], k);
                    }
                }
                if (e.cpuKind[j] != RankEvents.SYNC) {
                    continue;
                }
                // it waited for the streams whose last launched op had ended when it returned
                long end = e.cpuStart[j] + e.cpuDur[j];
                int[] deps = launchedOnStream.values().intStream().filter(k -> ends[k] <= end).toArray();
                syncDeps[j] = deps;
                long gpuDone = e.cpuStart[j];
                for (int k : deps) {
                    gpuDone = Math.max(gpuDone, ends[k]);
                }
                syncTail[j] = end - gpuDone;
            }
        }

        /** The op of another stream that ended last within {@value #CROSS_STREAM_NS} ns before op k started; -1: none. */
        private int followed(int k, long[] ends) {
            int best = -1;
            for (int j = k - 1; j >= 0 && e.opStart[k] - e.opStart[j] < 100 * CROSS_STREAM_NS; j--) {
                if (e.opStream[j] != e.opStream[k] && ends[j] <= e.opStart[k] && e.opStart[k] - ends[j] <= CROSS_STREAM_NS
                        && (best < 0 || ends[j] > ends[best])) {
                    best = j;
                }
            }
            return best;
        }

        /**
         * Ops with a launch call, in the order of their launch calls' starts: of the calls' indices, as the calls are in
         * start order (ops of one call, or of calls that start together, in either order: a host sync takes them all).
         */
        private int[] opsByLaunchOrder() {
            int[] from = new int[e.cpu + 1];
            for (int k = 0; k < e.ops; k++) {
                if (launch[k] >= 0) {
                    from[launch[k] + 1]++;
                }
            }
            for (int j = 0; j < e.cpu; j++) {
                from[j + 1] += from[j];
            }
            int[] out = new int[from[e.cpu]];
            for (int k = 0; k < e.ops; k++) {
                if (launch[k] >= 0) {
                    out[from[launch[k]]++] = k;
                }
            }
            return out;
        }
    }

    Replay(List<RankEvents> ranks) {
        this.ranks = ranks;
        this.models = new Model[ranks.size()];
        this.base = new int[ranks.size() + 1];
        this.cpuBase = new int[ranks.size()];
        for (int r = 0; r < ranks.size(); r++) {
            models[r] = new Model(ranks.get(r));
            cpuBase[r] = base[r] + 2 * ranks.get(r).ops;
            base[r + 1] = cpuBase[r] + 2 * ranks.get(r).cpu;
        }
        nodes = base[ranks.size()];
        Map<Integer, List<int[]>> members = new HashMap<>();
        for (int r = 0; r < ranks.size(); r++) {
            RankEvents e = ranks.get(r);
            for (int k = 0; k < e.ops; k++) {
                if (e.instance(k) >= 0) {
                    members.computeIfAbsent(e.instance(k), i -> new ArrayList<>()).add(new int[] {r, k});
                }
            }
        }
        // an instance counts as a collective only when every rank's part of it is here
        members.forEach((inst, list) -> {
            if (list.size() == ranks.size()) {
                int[] flat = new int[2 * list.size()];
                for (int i = 0; i < list.size(); i++) {
                    flat[2 * i] = list.get(i)[0];
                    flat[2 * i + 1] = list.get(i)[1];
                }
                instances.put(inst, flat);
            } else {
                list.forEach(m -> models[m[0]].instance[m[1]] = -1);
            }
        });
    }

    int opStartNode(int r, int k) {
        return base[r] + 2 * k;
    }

    int opEndNode(int r, int k) {
        return base[r] + 2 * k + 1;
    }

    int cpuStartNode(int r, int j) {
        return cpuBase[r] + 2 * j;
    }

    int cpuEndNode(int r, int j) {
        return cpuStartNode(r, j) + 1;
    }

    /** The node where window {@code w} of rank {@code r} starts: its annotation's start, or its first GPU op's. */
    int windowStart(int r, int w, boolean gpuAnchored) {
        RankEvents e = ranks.get(r);
        RankEvents.Window win = e.windows.get(w);
        if (gpuAnchored && win.gpuStart() != null) {
            int k = Arrays.binarySearch(e.opStart, 0, e.ops, win.gpuStart());
            while (k > 0 && e.opStart[k - 1] == win.gpuStart()) {
                k--;
            }
            if (k >= 0) {
                return opStartNode(r, k);
            }
        }
        return cpuStartNode(r, marker(e, win.cpuStart()));
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

    /**
     * The node where window {@code w} of rank {@code r} ends under timing {@code t}: the next window's start; for the
     * last window, the later of its annotation's end and its operations' last end.
     */
    int windowEnd(int r, int w, Timing t, boolean gpuAnchored) {
        if (w + 1 < ranks.get(r).windows.size()) {
            return windowStart(r, w + 1, gpuAnchored);
        }
        RankEvents e = ranks.get(r);
        RankEvents.Window win = e.windows.get(w);
        int best = gpuAnchored ? -1 : cpuStartNode(r, lastMarker(e));
        for (int k = 0; k < e.ops; k++) {
            if (e.opStart[k] >= win.start() && (best < 0 || t.time[opEndNode(r, k)] > t.time[best])) {
                best = opEndNode(r, k);
            }
        }
        return best < 0 ? cpuStartNode(r, lastMarker(e)) : best;
    }

    private static int lastMarker(RankEvents e) {
        for (int j = e.cpu - 1; j >= 0; j--) {
            if (e.cpuKind[j] == RankEvents.MARK) {
                return j;
            }
        }
        throw new IllegalStateException("no step markers");
    }

    /** The rank of a global node. */
    int rankOf(int node) {
        int r = Arrays.binarySearch(base, node);
        return r >= 0 ? r : -r - 2;
    }

    /**
     * Re-times every node under {@code changes}. With {@code coupled}, a collective ends when its last rank arrives;
     * without, each rank keeps its own waits as they were.
     */
    Timing run(Durations d, boolean coupled) {
        Graph g = graph(coupled);
        Timing t = new Timing(nodes);
        int[] pending = Arrays.copyOf(g.predecessors, nodes);
        int[] queue = new int[nodes];
        int head = 0;
        int tail = 0;
        for (int v = 0; v < nodes; v++) {
            if (pending[v] == 0) {
                queue[tail++] = v;
            }
        }
        while (head < tail) {
            int v = queue[head++];
            evaluate(v, d, coupled, t);
            for (int i = g.offset[v]; i < g.offset[v + 1]; i++) {
                if (--pending[g.successors[i]] == 0) {
                    queue[tail++] = g.successors[i];
                }
            }
        }
        t.complete = head == nodes;
        return t;
    }

    /** The graph's edges as successor lists (compressed: node v's are successors[offset[v] .. offset[v + 1]]). */
    private record Graph(int[] offset, int[] successors, int[] predecessors) {}

    /** The graphs by {@code coupled}, made once: every replay of this capture walks the same edges. */
    private final Graph[] graphs = new Graph[2];

    private Graph graph(boolean coupled) {
        int i = coupled ? 1 : 0;
        if (graphs[i] == null) {
            int[] predecessors = new int[nodes];
            int[] offset = new int[nodes + 1];
            forEachEdge(coupled, (u, v) -> {
                offset[u + 1]++;
                predecessors[v]++;
            });
            for (int v = 0; v < nodes; v++) {
                offset[v + 1] += offset[v];
            }
            int[] succ = new int[offset[nodes]];
            int[] fill = Arrays.copyOf(offset, nodes);
            forEachEdge(coupled, (u, v) -> succ[fill[u]++] = v);
            graphs[i] = new Graph(offset, succ, predecessors);
        }
        return graphs[i];
    }

    private interface Edge {
        void add(int u, int v);
    }

    private void forEachEdge(boolean coupled, Edge edge) {
        for (int r = 0; r < ranks.size(); r++) {
            Model m = models[r];
            RankEvents e = m.e;
            for (int k = 0; k < e.ops; k++) {
                edge.add(opStartNode(r, k), opEndNode(r, k));
                if (m.launch[k] >= 0) {
                    edge.add(cpuStartNode(r, m.launch[k]), opStartNode(r, k));
                }
                if (m.prev[k] >= 0) {
                    edge.add(opEndNode(r, m.prev[k]), opStartNode(r, k));
                }
                if (m.cross[k] >= 0) {
                    edge.add(opEndNode(r, m.cross[k]), opStartNode(r, k));
                }
                if (coupled && m.instance[k] >= 0) {
                    int[] members = instances.get(m.instance[k]);
                    for (int i = 0; i < members.length; i += 2) {
                        if (members[i] != r) {
                            edge.add(opStartNode(members[i], members[i + 1]), opEndNode(r, k));
                        }
                    }
                }
            }
            for (int j = 0; j < e.cpu; j++) {
                edge.add(cpuStartNode(r, j), cpuEndNode(r, j));
                if (m.prevCpu[j] >= 0) {
                    edge.add(cpuEndNode(r, m.prevCpu[j]), cpuStartNode(r, j));
                }
                if (m.syncDeps[j] != null) {
                    for (int k : m.syncDeps[j]) {
                        edge.add(opEndNode(r, k), cpuEndNode(r, j));
                    }
                }
            }
        }
    }

    /** New durations: per rank and op (transfer for collectives), and per rank the CPU's. */
    static final class Durations {
        final long[][] op;
        final long[][] launchCost;
        final long[][] cpuGap;

        Durations(long[][] op, long[][] launchCost, long[][] cpuGap) {
            this.op = op;
            this.launchCost = launchCost;
            this.cpuGap = cpuGap;
        }
    }

    private void evaluate(int v, Durations d, boolean coupled, Timing t) {
        int r = rankOf(v);
        Model m = models[r];
        RankEvents e = m.e;
        int local = v - base[r];
        if (local < 2 * e.ops) {
            int k = local / 2;
            if (local % 2 == 0) {
                long best = Long.MIN_VALUE;
                int bind = -1;
                if (m.launch[k] >= 0) {
                    long x = t.time[cpuStartNode(r, m.launch[k])] + m.latency[k];
                    if (x > best) {
                        best = x;
                        bind = cpuStartNode(r, m.launch[k]);
                    }
                }
                if (m.prev[k] >= 0) {
                    long x = t.time[opEndNode(r, m.prev[k])] + m.streamGap[k];
                    if (x > best) {
                        best = x;
                        bind = opEndNode(r, m.prev[k]);
                    }
                }
                if (m.cross[k] >= 0) {
                    long x = t.time[opEndNode(r, m.cross[k])] + m.crossGap[k];
                    if (x > best) {
                        best = x;
                        bind = opEndNode(r, m.cross[k]);
                    }
                }
                if (bind < 0) {
                    best = e.opStart[k];
                }
                t.time[v] = best;
                t.bind[v] = bind;
            } else if (m.instance[k] >= 0) {
                // All ranks leave together, the transfer after the last arrival: in this rank's clock, its
                // original end moved by the latest arrival's shift less that rank's original duration.
                int[] members = instances.get(m.instance[k]);
                long worst = Long.MIN_VALUE;
                int bind = opStartNode(r, k);
                if (coupled) {
                    for (int i = 0; i < members.length; i += 2) {
                        int rr = members[i];
                        int kk = members[i + 1];
                        RankEvents other = ranks.get(rr);
                        long x = t.time[opStartNode(rr, kk)] - other.opStart[kk] - other.opDur[kk];
                        if (x > worst || (x == worst && rr == r)) {
                            worst = x;
                            bind = opStartNode(rr, kk);
                        }
                    }
                } else {
                    // its own wait kept: the transfer after it, from its new start
                    worst = t.time[opStartNode(r, k)] - e.opStart[k] - e.collTransfer[e.opColl[k]];
                }
                t.time[v] = e.opEnd(k) + d.op[r][k] + worst;
                t.bind[v] = bind;
            } else {
                t.time[v] = t.time[opStartNode(r, k)] + d.op[r][k];
                t.bind[v] = opStartNode(r, k);
            }
        } else {
            int j = (local - 2 * e.ops) / 2;
            if ((local - 2 * e.ops) % 2 == 0) {
                if (m.prevCpu[j] >= 0) {
                    t.time[v] = t.time[cpuEndNode(r, m.prevCpu[j])] + d.cpuGap[r][j];
                    t.bind[v] = cpuEndNode(r, m.prevCpu[j]);
                } else {
                    t.time[v] = e.cpuStart[j];
                    t.bind[v] = -1;
                }
            } else {
                long start = t.time[cpuStartNode(r, j)];
                t.bind[v] = cpuStartNode(r, j);
                if (e.cpuKind[j] == RankEvents.SYNC) {
                    long done = start;
                    for (int k : m.syncDeps[j]) {
                        if (t.time[opEndNode(r, k)] > done) {
                            done = t.time[opEndNode(r, k)];
                            t.bind[v] = opEndNode(r, k);
                        }
                    }
                    t.time[v] = done + m.syncTail[j];
                } else if (e.cpuKind[j] == RankEvents.LAUNCH) {
                    t.time[v] = start + d.launchCost[r][j];
                } else {
                    t.time[v] = start;
                }
            }
        }
    }

    /** Every node's time and the predecessor that set it (-1: none: fixed where the capture has it). */
    static final class Timing {
        final long[] time;
        final int[] bind;
        boolean complete;

        Timing(int nodes) {
            time = new long[nodes];
            bind = new int[nodes];
        }
    }
}
