package dev.steptrace.whatif;

import dev.steptrace.common.PathPart;
import dev.steptrace.common.StepSource;
import dev.steptrace.store.KeptAnalysis;
import dev.steptrace.store.Sql;
import dev.steptrace.store.Store;
import it.unimi.dsi.fastutil.longs.Long2LongMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * Each rank's own critical paths as captured (docs/whatif.md, "Critical path"): the rank's steps replayed as
 * captured, one rank and a run of its steps at a time, and each step's window walked back from its end along the
 * dependencies that set every time. Rank-local: a collective is one operation of its rank, its whole time on the
 * path, which the view {@code critical_path} splits into the wait for other ranks and the transfer once the
 * capture's collectives are matched (by the analysis, or by the Spark application, whose tasks each see a few
 * ranks). Kept in the store ({@link #keep}), and drawn on the timeline ({@link #segments}).
 */
public final class CriticalPaths {
    private static final String TABLE = "critical_path_base";
    /**
     * GPU operations per run of one rank's steps. The heap a run takes stays beside DuckDB's memory into the report
     * written after the walk: at 16 x 2 GB, runs of 300 k took the report to 1.00-1.07 GiB peak RSS, runs of 100 k
     * to 0.92-0.95 GiB. A step's path is the same in runs of any size (docs/whatif.md, "Assumptions").
     */
    private static final long RUN_OPS = 100_000;
    /**
     * How much a stream's consecutive operations may overlap and still follow one another, for the analysis's
     * estimate of the gap between them (stage {@code 61-replay-latencies}): the replay's own rule.
     */
    public static final long STREAM_ROUNDING_NS = Replay.ROUNDING_NS;

    private CriticalPaths() {}

    /** A segment of a step's critical path on its rank: its part, its start and end in the capture's clock (ns). */
    public record Segment(PathPart part, long startNs, long endNs) {}

    /** What a walk of one rank's windows gives: each segment of a window's path. */
    private interface WindowSegments {
        void add(RankEvents.Window win, PathPart part, int op, long ns, long end) throws SQLException;
    }

    /**
     * Appends the critical paths of every rank's steps of the kept analysis {@code a} to {@code critical_path_base},
     * a run of steps at a time.
     */
    public static void keep(KeptAnalysis a, boolean gpuAnchored, List<String> hostSyncs) throws SQLException {
        keep(a, gpuAnchored, hostSyncs, RUN_OPS);
    }

    /** {@link #keep}, each rank's steps replayed in runs of at most {@code runOps} GPU operations. */
    static void keep(KeptAnalysis a, boolean gpuAnchored, List<String> hostSyncs, long runOps) throws SQLException {
        Connection c = a.connection();
        // The walk holds a run's events and its graph on the Java heap, and reads each run once: DuckDB, left alone,
        // keeps what it read cached up to its whole limit beside that heap (at 16 x 2 GB, 1.16 GB peak RSS; 0.93 GB
        // at half the limit, as fast; docs/performance.md, "Why the code is as it is").
        Store.withMemoryLimitScaled(c, 0.5, () -> appendEveryRank(a, gpuAnchored, hostSyncs, runOps));
    }

    private static void appendEveryRank(KeptAnalysis a, boolean gpuAnchored, List<String> hostSyncs, long runOps)
            throws SQLException {
        Connection c = a.connection();
        // The table this connection reads by that name: a read-only store's temp copy ahead of the store's own.
        String[] at = Sql.tableLocation(c, TABLE);
        try (DuckDBAppender out = c.unwrap(DuckDBConnection.class).createAppender(at[0], at[1], TABLE)) {
            for (RankEvents rank : RankEvents.windows(a)) {
                for (int[] chunk : RankEvents.chunks(List.of(rank), runOps)) {
                    RankEvents e = rank.slice(chunk[0], chunk[1]);
                    e.load(a, hostSyncs, StepSource.GRAPH_LAUNCHES, false);
                    List<Map.Entry<RankEvents.Window, Map<PathPart, Long2LongOpenHashMap>>> rows = new ArrayList<>();
                    // per window, part, and collective operation (its start) of a collective part; a window's
                    // segments come together, so the window is compared by identity with the last one, not hashed
                    walk(e, gpuAnchored, (win, part, op, ns, end) -> {
                        if (rows.isEmpty() || rows.get(rows.size() - 1).getKey() != win) {
                            rows.add(Map.entry(win, new EnumMap<>(PathPart.class)));
                        }
                        rows.get(rows.size() - 1).getValue().computeIfAbsent(part, p -> new Long2LongOpenHashMap())
                                .addTo(part.collective() ? e.opStart[op] : Long.MIN_VALUE, ns);
                    });
                    for (Map.Entry<RankEvents.Window, Map<PathPart, Long2LongOpenHashMap>> w : rows) {
                        append(out, a, e, w.getKey(), w.getValue());
                    }
                }
            }
        }
    }

    /** The critical paths of steps {@code steps} of file {@code fileId}, by step, each as its segments in time order. */
    public static Map<Integer, List<Segment>> segments(KeptAnalysis a, boolean gpuAnchored, List<String> hostSyncs,
                                                       int fileId, Collection<Integer> steps) throws SQLException {
        Map<Integer, List<Segment>> out = new TreeMap<>();
        for (RankEvents rank : RankEvents.windows(a)) {
            if (rank.fileId != fileId) {
                continue;
            }
            for (int w = 0; w < rank.windows.size(); w++) {
                if (!steps.contains(rank.windows.get(w).step())) {
                    continue;
                }
                RankEvents e = rank.slice(w, w + 1);
                e.load(a, hostSyncs, StepSource.GRAPH_LAUNCHES, false);
                walk(e, gpuAnchored, (win, part, op, ns, end) -> out.computeIfAbsent(win.step(), s -> new ArrayList<>())
                        .add(0, new Segment(part, end - ns, end)));
            }
        }
        return out;
    }

    /** Walks each measured window of a loaded run of one rank, replayed as captured, from its end to its start. */
    private static void walk(RankEvents e, boolean gpuAnchored, WindowSegments out) throws SQLException {
        Replay replay = new Replay(List.of(e));
        Replay.Durations d = WhatIf.durations(replay, Changes.NONE, null);
        Replay.Timing t = replay.run(d, false);
        SQLException[] failed = {null};
        for (int w = e.first; w < e.last; w++) {
            RankEvents.Window win = e.windows.get(w);
            int start = replay.windowStart(0, w, gpuAnchored);
            // one rank, so a node's operation is its index over 2 (the rank's nodes start at 0)
            CriticalPath.walk(replay, d, t, 0, replay.windowEnd(0, w, t, gpuAnchored), t.time[start], false,
                    (part, rank, node, ns, end) -> {
                        try {
                            out.add(win, part, node < 2 * e.ops ? node / 2 : -1, ns, end);
                        } catch (SQLException x) {
                            failed[0] = x;
                        }
                    });
            if (failed[0] != null) {
                throw failed[0];
            }
        }
    }

    private static void append(DuckDBAppender out, KeptAnalysis a, RankEvents e, RankEvents.Window win,
                               Map<PathPart, Long2LongOpenHashMap> parts) throws SQLException {
        for (Map.Entry<PathPart, Long2LongOpenHashMap> p : parts.entrySet()) {
            for (Long2LongMap.Entry op : p.getValue().long2LongEntrySet()) {
                Long opStart = op.getLongKey() == Long.MIN_VALUE ? null : op.getLongKey();
                out.beginRow().append(a.captureId()).append(a.key()).append(e.fileId).append(e.rank)
                        .append(win.step()).append(win.phase()).append(win.phaseIndex()).append(p.getKey().id())
                        .append(opStart).append(op.getLongValue()).endRow();
            }
        }
    }
}
