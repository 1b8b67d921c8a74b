package dev.steptrace.analysis;

import dev.steptrace.store.ColumnRows;
import dev.steptrace.store.TableBatch;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * What encloses each correlation's launch call on its thread (docs/taxonomy.md, "Classes from the launching op"):
 * the innermost CPU op, user annotation and nn.Module range open at the call's start, into {@code t_launch_contexts}
 * (one row per correlation; NULL where nothing of a layer encloses it). Stage {@code 22-launch-contexts} makes the
 * table and its inputs, the launches {@code h_ctx_launches} and the launching threads' ranges {@code h_ctx_ranges};
 * this class fills it, a batch of files at a time (SqlStage's batches), with one pass over the batch's ranges and
 * launches in time order. In SQL the same answer took a window over every range's start and end and two ASOF joins,
 * each a sort of the batch: 3-4x the time of this pass with its two sorted reads (docs/performance.md, "Why the code
 * is as it is").
 *
 * <p>Per thread and layer the pass keeps the depth (ranges started less ranges ended, an end at a time before a start
 * at that time, so that back-to-back ranges do not nest), and, for each depth, the range that last started at it.
 * The innermost range open at a call is the one that last started at the depth open then, if it has not ended: of
 * ranges that nest, a later start at that depth would have closed it; ranges that do not nest (a trace's clock
 * rounding) get the same answer as the depth says. Ranges with no length enclose nothing and are not read. Of ranges
 * with the same start, the longer is the outer; of two with the same start and end, the one with the lower external
 * id, as an op gets its id when it starts, before the ops it calls.
 */
final class LaunchContexts {
    private static final String TABLE = "t_launch_contexts";
    /** Rows appended to the table per INSERT. */
    private static final int BATCH_ROWS = 1 << 16;
    /** Ranges and launches read per Arrow batch. */
    private static final int READ_ROWS = 1 << 14;
    /** The layers, in the order of the table's columns after the correlation. */
    private static final String LAYERS = "CASE layer WHEN 'op' THEN 0 WHEN 'annotation' THEN 1 ELSE 2 END";
    private static final String RANGES = "SELECT file_id, pid, tid, " + LAYERS + ", start_ns, end_ns, name_id"
            + " FROM h_ctx_ranges WHERE file_id BETWEEN ? AND ? AND end_ns > start_ns"
            + " ORDER BY file_id, pid, tid, start_ns, end_ns - start_ns DESC, external_id, name_id";
    private static final String LAUNCHES = "SELECT file_id, pid, tid, at_ns, correlation FROM h_ctx_launches"
            + " WHERE file_id BETWEEN ? AND ? ORDER BY file_id, pid, tid, at_ns";

    private LaunchContexts() {}

    /** Fills {@code t_launch_contexts}, made empty by stage 22-launch-contexts, from its helper tables. */
    static void find(Connection c) throws SQLException {
        try (BufferAllocator allocator = new RootAllocator();
             TableBatch out = TableBatch.forTable(c, allocator, TABLE, BATCH_ROWS);
             PreparedStatement ranges = c.prepareStatement(RANGES);
             PreparedStatement launches = c.prepareStatement(LAUNCHES)) {
            SqlStage.forEachBatch(c, (first, last) -> {
                for (PreparedStatement p : new PreparedStatement[] {ranges, launches}) {
                    p.setLong(1, first);
                    p.setLong(2, last);
                }
                try (ResultSet r = ranges.executeQuery(); ResultSet l = launches.executeQuery();
                     ColumnRows rangeRows = new ColumnRows(r, READ_ROWS, 0);
                     ColumnRows launchRows = new ColumnRows(l, READ_ROWS, 0)) {
                    sweep(rangeRows, launchRows, out);
                }
                out.flush();
            });
        }
    }

    /** One batch: its ranges and launches, each in their query's order. */
    private static void sweep(ColumnRows ranges, ColumnRows launches, TableBatch out) throws SQLException {
        Layer[] layers = {new Layer(), new Layer(), new Layer()};
        Range range = new Range(ranges);
        ThreadKey thread = null;
        while (launches.next()) {
            int fileId = launches.getInt(1);
            long pid = launches.getLong(2);
            long tid = launches.getLong(3);
            long atNs = launches.getLong(4);
            if (thread == null || !thread.is(fileId, pid, tid)) {
                thread = new ThreadKey(fileId, pid, tid);
                for (Layer y : layers) {
                    y.clear();
                }
                while (range.more && range.thread().compareTo(thread) < 0) {
                    range.next();
                }
            }
            while (range.more && range.start <= atNs && thread.is(range.fileId, range.pid, range.tid)) {
                layers[range.layer].start(range.start, range.end, range.name);
                range.next();
            }
            out.setInt(0, fileId);
            out.setLong(1, launches.getLong(5));
            for (int y = 0; y < layers.length; y++) {
                int name = layers[y].innermostAt(atNs);
                if (name >= 0) {
                    out.setInt(2 + y, name);
                }
            }
            out.endRow();
        }
    }

    private record ThreadKey(int fileId, long pid, long tid) implements Comparable<ThreadKey> {
        boolean is(int otherFileId, long otherPid, long otherTid) {
            return fileId == otherFileId && pid == otherPid && tid == otherTid;
        }

        @Override
        public int compareTo(ThreadKey o) {
            int f = Integer.compare(fileId, o.fileId);
            if (f != 0) {
                return f;
            }
            int p = Long.compare(pid, o.pid);
            return p != 0 ? p : Long.compare(tid, o.tid);
        }
    }

    /** The next range of the batch not yet swept, each column read once; {@code more} false after the last. */
    private static final class Range {
        private final ColumnRows rows;
        boolean more;
        int fileId;
        long pid;
        long tid;
        int layer;
        long start;
        long end;
        int name;

        Range(ColumnRows rows) throws SQLException {
            this.rows = rows;
            next();
        }

        ThreadKey thread() {
            return new ThreadKey(fileId, pid, tid);
        }

        void next() throws SQLException {
            more = rows.next();
            if (!more) {
                return;
            }
            fileId = rows.getInt(1);
            pid = rows.getLong(2);
            tid = rows.getLong(3);
            layer = rows.getInt(4);
            start = rows.getLong(5);
            end = rows.getLong(6);
            name = rows.getInt(7);
        }
    }

    /** One layer of one thread's ranges, swept in time order. */
    private static final class Layer {
        private final OpenEnds open = new OpenEnds();
        /** Per depth (1 up), the end and name of the range that last started at it. */
        private long[] lastEnd = new long[16];
        private int[] lastName = new int[16];

        void clear() {
            open.clear();
        }

        /** A range starting, after every range that starts before it. */
        void start(long startNs, long endNs, int nameId) {
            endUpTo(startNs);
            int depth = open.size() + 1;
            if (depth >= lastEnd.length) {
                lastEnd = Arrays.copyOf(lastEnd, 2 * depth);
                lastName = Arrays.copyOf(lastName, 2 * depth);
            }
            lastEnd[depth] = endNs;
            lastName[depth] = nameId;
            open.add(endNs);
        }

        /** The name of the innermost range open at {@code atNs}, after every range that starts by then; -1: none. */
        int innermostAt(long atNs) {
            endUpTo(atNs);
            int depth = open.size();
            return depth > 0 && lastEnd[depth] > atNs ? lastName[depth] : -1;
        }

        private void endUpTo(long ns) {
            while (open.first() <= ns) {
                open.removeFirst();
            }
        }
    }
}
