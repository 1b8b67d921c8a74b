package dev.steptrace.whatif;

import dev.steptrace.common.PathPart;
import dev.steptrace.common.StepSource;
import dev.steptrace.store.KeptAnalysis;
import dev.steptrace.store.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The store's {@code critical_path_base} rows of a kept analysis (docs/whatif.md, "Critical path"): each rank's
 * steps replayed as captured, one rank and a run of its steps at a time, and each step's window walked back from its end along the
 * dependencies that set every time. Rank-local: a collective is one operation of its rank, its whole time on the
 * path a row of its own (its start in {@code op_ts_ns}), which the view {@code critical_path} splits into the
 * wait for other ranks and the transfer once the capture's collectives are matched (by the analysis, or by the
 * Spark application, whose tasks each see a few ranks).
 */
public final class CriticalPaths {
    private static final String TABLE = "critical_path_base";

    private CriticalPaths() {}

    /** Appends the critical paths of every rank's steps of the kept analysis {@code a} to {@code critical_path_base}. */
    public static void keep(KeptAnalysis a, boolean gpuAnchored, List<String> hostSyncs) throws SQLException {
        Connection c = a.connection();
        // The table this connection reads by that name: a read-only store's temp copy ahead of the store's own.
        List<String> where = Sql.strings(c, "SELECT database_name || '.' || schema_name FROM duckdb_tables()"
                + " WHERE table_name = '" + TABLE + "' ORDER BY temporary DESC, database_name = current_database()"
                + " LIMIT 1");
        String[] at = where.get(0).split("\\.", 2);
        try (DuckDBAppender out = c.unwrap(DuckDBConnection.class).createAppender(at[0], at[1], TABLE)) {
            for (RankEvents rank : RankEvents.windows(a)) {
                // a run of the rank's steps at a time in memory
                for (int[] chunk : RankEvents.chunks(List.of(rank), WhatIf.CHUNK_OPS)) {
                    RankEvents e = rank.slice(chunk[0], chunk[1]);
                    e.load(a, hostSyncs, StepSource.GRAPH_LAUNCHES, false);
                    append(out, a, e, gpuAnchored);
                }
            }
        }
    }

    private static void append(DuckDBAppender out, KeptAnalysis a, RankEvents e, boolean gpuAnchored)
            throws SQLException {
        Replay replay = new Replay(List.of(e));
        Replay.Durations d = WhatIf.durations(replay, Changes.NONE, null);
        Replay.Timing t = replay.run(d, false);
        for (int w = e.first; w < e.last; w++) {
            RankEvents.Window win = e.windows.get(w);
            int start = replay.windowStart(0, w, gpuAnchored);
            // per part, and per collective operation (its start) of a collective part
            Map<PathPart, Map<Long, Long>> parts = new TreeMap<>();
            CriticalPath.walk(replay, d, t, 0, replay.windowEnd(0, w, t, gpuAnchored), t.time[start], false,
                    (part, rank, node, ns) -> parts.computeIfAbsent(part, p -> new HashMap<>())
                            .merge(part.collective() ? e.opStart[node / 2] : Long.MIN_VALUE, ns, Long::sum));
            for (Map.Entry<PathPart, Map<Long, Long>> p : parts.entrySet()) {
                for (Map.Entry<Long, Long> op : p.getValue().entrySet()) {
                    Long opStart = op.getKey() == Long.MIN_VALUE ? null : op.getKey();
                    out.beginRow().append(a.captureId()).append(a.key()).append(e.fileId).append(e.rank)
                            .append(win.step()).append(win.phase()).append(win.phaseIndex()).append(p.getKey().id())
                            .append(opStart).append(op.getValue().longValue())
                            .endRow();
                }
            }
        }
    }
}
