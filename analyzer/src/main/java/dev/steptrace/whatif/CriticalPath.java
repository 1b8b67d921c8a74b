package dev.steptrace.whatif;

import dev.steptrace.common.PathPart;
import java.util.Map;
import java.util.TreeMap;

/**
 * The chain of dependencies that made a step (docs/whatif.md, "Critical path"): from the end of its window back
 * to its start, each node's time was set by one predecessor (a launch, the stream's previous kernel, the CPU's
 * previous call, the GPU work a host sync waited for, a collective's last rank); walking those predecessors
 * cuts the window into segments that sum to it, each a part of the path on some rank. Across ranks the walk
 * follows a collective's last arrival onto that rank, whose clock the instance's common end aligns; kept to one
 * rank, a collective that waited for another rank is that wait and its transfer.
 */
final class CriticalPath {
    private CriticalPath() {}

    /** A segment's key: the part and the rank it ran on. */
    record Key(PathPart part, int rank) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            return part != o.part ? part.compareTo(o.part) : Integer.compare(rank, o.rank);
        }
    }

    /** Where a walk's segments go. */
    interface Segments {
        /**
         * A segment of {@code ns} of {@code part}, on rank index {@code rank}, ending at global node {@code node}
         * (an operation's or a CPU call's start or end: what the segment led to) at {@code end} (rank {@code r}'s
         * clock).
         */
        void add(PathPart part, int rank, int node, long ns, long end);
    }

    /** The window [start, end node's time] of rank {@code r} as path segments by part and rank index. */
    static Map<Key, Long> walk(Replay replay, Replay.Durations d, Replay.Timing t, int r, int endNode, long start,
                               boolean crossRank) {
        Map<Key, Long> out = new TreeMap<>();
        walk(replay, d, t, r, endNode, start, crossRank, (part, rank, node, ns, end) -> out.merge(new Key(part, rank),
                ns, Long::sum));
        return out;
    }

    /**
     * The window [start, end node's time] of rank {@code r} as path segments, summing to its length, from its
     * end back to its start.
     *
     * @param crossRank follow a collective's last arrival onto its rank (else stay on rank {@code r})
     */
    static void walk(Replay replay, Replay.Durations d, Replay.Timing t, int r, int endNode, long start,
                     boolean crossRank, Segments out) {
        int node = endNode;
        int rank = r;
        long offset = 0; // the current rank's clock to rank r's
        // where the previous segment began: a node may end after its successor began (a stream's operations
        // overlapping by their timestamps' rounding), and the segments must not overlap
        long limit = Long.MAX_VALUE;
        while (true) {
            long at = Math.min(t.time[node] + offset, limit);
            if (at <= start) {
                break;
            }
            int p = t.bind[node];
            if (p < 0) {
                add(out, PathPart.UNTRACKED, rank, node, at - start, at);
                break;
            }
            int pr = replay.rankOf(p);
            RankEvents e = replay.ranks.get(rank);
            int local = node - replay.base[rank];
            boolean op = local < 2 * e.ops;
            if (op && local % 2 == 1 && pr != rank) {
                // a collective that ended when another rank arrived, after the transfer
                int k = local / 2;
                int pk = (p - replay.base[pr]) / 2;
                long shift = e.opEnd(k) - replay.ranks.get(pr).opEnd(pk);
                if (crossRank) {
                    long from = t.time[p] + offset + shift;
                    add(out, part(e, k), pr, node, at - Math.max(from, start), at);
                    limit = Math.min(at, Math.max(from, start));
                    node = p;
                    rank = pr;
                    offset += shift;
                    continue;
                }
                p = replay.opStartNode(rank, k);
            }
            long from = t.time[p] + offset;
            long len = at - Math.max(from, start);
            if (op) {
                int k = local / 2;
                if (local % 2 == 1) {
                    PathPart part = part(e, k);
                    if (part.collective()) {
                        long transfer = Math.min(len, d.op[rank][k]);
                        add(out, part, rank, node, transfer, at);
                        add(out, PathPart.COMM_WAIT, rank, node, len - transfer, at - transfer);
                    } else {
                        add(out, part, rank, node, len, at);
                    }
                } else {
                    add(out, pIsCpu(replay, p, pr) ? PathPart.LAUNCH : PathPart.GAP, rank, node, len, at);
                }
            } else {
                int j = (local - 2 * e.ops) / 2;
                boolean end = (local - 2 * e.ops) % 2 == 1;
                if (!end) {
                    add(out, PathPart.CPU, rank, node, len, at);
                } else if (pIsCpu(replay, p, pr)) {
                    add(out, e.cpuKind[j] == RankEvents.LAUNCH ? PathPart.LAUNCH : PathPart.CPU, rank, node, len, at);
                } else {
                    add(out, PathPart.SYNC, rank, node, len, at);
                }
            }
            if (from <= start) {
                break;
            }
            limit = Math.min(at, from);
            node = p;
        }
    }

    private static boolean pIsCpu(Replay replay, int p, int pr) {
        return p - replay.base[pr] >= 2 * replay.ranks.get(pr).ops;
    }

    private static PathPart part(RankEvents e, int k) {
        return PathPart.ofCategory(e.opCategory[k]);
    }

    private static void add(Segments out, PathPart part, int rank, int node, long ns, long end) {
        if (ns > 0) {
            out.add(part, rank, node, ns, end);
        }
    }
}
