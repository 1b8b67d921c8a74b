package dev.steptrace.analysis;

import dev.steptrace.store.ColumnRows;
import dev.steptrace.store.Sql;
import dev.steptrace.store.TableBatch;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * Each step's window cut into the parts of its time (stage {@code 65-step-time}, whose header defines them;
 * docs/reports.md, "Step time"): {@code t_step_parts_by_category}, the idle moments inside windows,
 * {@code h_idle_spans}, with the part each makes and the host-sync call that caused it, and the CPU ops under the idle
 * time, {@code t_idle_cpu_ops}. Stage 65 makes the windows ({@code t_step_times}), the host-sync calls
 * ({@code h_sync_calls}) and the three tables empty; this class fills them, a batch of files at a time (SqlStage's
 * batches), in one pass over each file's operations in time order. In SQL the same took a window over every operation's start and end and five joins of its rows, each
 * a sort of the batch: 3-5x the time of this pass with its sorted reads (docs/performance.md, "Why the code is as it
 * is").
 *
 * <p>The pass moves from one moment to the next where an operation starts or ends, a window starts or ends, or a step's
 * GPU work starts or ends. At one moment operations start before others end, so back-to-back operations leave no gap.
 * Between two moments the GPU runs what is open then: the time goes to the categories that run, shared equally among
 * them, else (collectives alone) to the collectives' kinds, each share counted in sixtieths of a nanosecond (1 to 6
 * categories, 1 or 2 collectives divide 60) so that the sums are exact and the parts, rounded once, sum to the window.
 * Where nothing runs the moment is idle. An idle gap is known whole when the operation that ends it starts: whether
 * that operation was launched only once the GPU was idle, and which host-sync call, if any, was running when the GPU
 * went idle (the latest to start by then, if it had not ended); so its spans are written then, and a gap no operation
 * ends has neither.
 */
final class StepTimeParts {
    /** The busy parts, by the label of what runs: six categories of work, then the two kinds of collective. */
    private static final List<String> BUSY = List.of("attention", "moe_gemm", "gemm", "routing", "memcpy", "other",
            "comm_allreduce", "comm_other");
    private static final int WORK = 6;
    /** Rows appended to a table per INSERT. */
    private static final int BATCH_ROWS = 1 << 16;
    /** Operations and CPU ops read per Arrow batch, each column copied whole into an array. */
    private static final int READ_ROWS = 1 << 14;
    private static final List<String> IDLE = List.of("idle_sync", "idle_before", "idle_after", "idle_launch",
            "idle_other");
    private static final int IDLE_SYNC = 0;
    private static final int IDLE_BEFORE = 1;
    private static final int IDLE_AFTER = 2;
    private static final int IDLE_LAUNCH = 3;
    private static final int IDLE_OTHER = 4;
    /** The idle parts' names as h_idle_spans holds them, encoded once: a capture has an idle span per gap. */
    private static final byte[][] IDLE_UTF8 = IDLE.stream().map(p -> p.getBytes(StandardCharsets.UTF_8))
            .toArray(byte[][]::new);
    /** No time yet: before the file's first operation ends, the GPU went idle at no known moment. */
    private static final long NONE = Long.MIN_VALUE;

    private static final String WINDOWS = "SELECT t.file_id, t.step, t.start_ns, t.end_ns, m.gpu_start, m.gpu_end,"
            + " t.rank, t.phase, t.phase_index FROM t_step_times t JOIN t_step_metrics m USING (file_id, step)"
            + " WHERE t.file_id BETWEEN ? AND ? ORDER BY t.file_id, t.start_ns, t.step";
    /** Each operation's label as its place in BUSY, from 1 (0: another category); in label order at one time. */
    private static final String OPS = "SELECT o.file_id, o.ts_ns, o.ts_ns + o.dur_ns, o.launch_ns,"
            + " coalesce(list_position(['" + String.join("', '", BUSY) + "'], label), 0)"
            + " FROM (SELECT o.*, CASE WHEN k.category = 'allreduce' THEN 'comm_allreduce' ELSE k.category END AS label"
            + " FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind, variant)) o"
            + " WHERE o.dur_ns > 0 AND o.file_id BETWEEN ? AND ? ORDER BY o.file_id, o.ts_ns, o.label";
    private static final String SYNCS = "SELECT file_id, ts_ns, end_ns, name_id FROM h_sync_calls"
            + " WHERE file_id BETWEEN ? AND ? ORDER BY file_id, ts_ns";
    /** The kinds of CPU range whose time under idle GPU is counted (Python functions where the trace kept them). */
    private static final List<String> CPU_KINDS = List.of("cpu_op", "python_function");
    /** In any order: each op is looked up in its file's idle spans. */
    private static final String CPU_OPS = "SELECT file_id,"
            + " CASE WHEN kind = '" + CPU_KINDS.get(0) + "' THEN 0 ELSE 1 END, name_id, ts_ns, ts_ns + dur_ns FROM cpu_ops WHERE kind IN ('" + String.join("', '", CPU_KINDS) + "')"
            + " AND dur_ns > 0 AND file_id BETWEEN ? AND ?";

    private StepTimeParts() {}

    /**
     * Fills {@code t_step_parts_by_category}, {@code h_idle_spans} and {@code t_idle_cpu_ops}, made empty by stage 65.
     */
    static void cut(Connection c) throws SQLException {
        try (BufferAllocator allocator = new RootAllocator();
             TableBatch partsOut = TableBatch.forTable(c, allocator, "t_step_parts_by_category", BATCH_ROWS);
             TableBatch spansOut = TableBatch.forTable(c, allocator, "h_idle_spans", BATCH_ROWS);
             TableBatch cpuOut = TableBatch.forTable(c, allocator, "t_idle_cpu_ops", BATCH_ROWS);
             PreparedStatement windows = c.prepareStatement(WINDOWS); PreparedStatement ops = c.prepareStatement(OPS);
             PreparedStatement syncs = c.prepareStatement(SYNCS);
             PreparedStatement cpuOps = c.prepareStatement(CPU_OPS)) {
            SqlStage.forEachBatch(c, (first, last) -> {
                for (PreparedStatement p : new PreparedStatement[] {windows, ops, syncs, cpuOps}) {
                    p.setLong(1, first);
                    p.setLong(2, last);
                }
                Map<Integer, FileSweep> swept = new HashMap<>();
                try (ResultSet w = windows.executeQuery(); ResultSet o = ops.executeQuery();
                     ResultSet s = syncs.executeQuery(); ColumnRows opRows = new ColumnRows(o, READ_ROWS, NONE)) {
                    Rows rows = new Rows(w, opRows, s);
                    while (rows.window) {
                        FileSweep file = new FileSweep(rows, partsOut, spansOut);
                        file.run();
                        swept.put(file.fileId, file);
                    }
                }
                try (ResultSet rs = cpuOps.executeQuery()) {
                    idleCpuOps(rs, swept, cpuOut);
                }
                partsOut.flush();
                spansOut.flush();
                cpuOut.flush();
            });
        }
    }

    /** What the rows of a step's window carry: its rank, phase and place in the phase. */
    private record StepLabels(Integer rank, String phase, Integer phaseIndex) {}

    /** A group of {@code t_idle_cpu_ops}: a file's CPU ops of one name and kind in steps of one rank and phase. */
    private record CpuOpGroup(int fileId, Integer rank, String phase, int kind, int nameId) {}

    /**
     * The CPU ops of the batch's files that ran while the GPU was idle inside steps, with the idle time under them: the
     * idle time before a moment, counted along the file's idle spans in time order, read at each op's start and end;
     * the difference is the idle time the op ran over, counted in the step of the last idle span it reaches.
     */
    private static void idleCpuOps(ResultSet rs, Map<Integer, FileSweep> swept, TableBatch out) throws SQLException {
        Map<CpuOpGroup, long[]> groups = new LinkedHashMap<>();
        int[] fileIds = new int[READ_ROWS];
        int[] kinds = new int[READ_ROWS];
        int[] nameIds = new int[READ_ROWS];
        long[] starts = new long[READ_ROWS];
        long[] ends = new long[READ_ROWS];
        Sql.batches(rs, READ_ROWS, rows -> {
            List<FieldVector> v = rows.getFieldVectors();
            Sql.ints(v.get(0), fileIds, 0, 0);
            Sql.ints(v.get(1), kinds, 0, 0);
            Sql.ints(v.get(2), nameIds, 0, 0);
            Sql.longs(v.get(3), starts, 0, 0);
            Sql.longs(v.get(4), ends, 0, 0);
            FileSweep file = null;
            for (int r = 0; r < rows.getRowCount(); r++) {
                if (file == null || file.fileId != fileIds[r]) {
                    file = swept.get(fileIds[r]);
                    if (file == null) {
                        continue;
                    }
                }
                int last = file.lastSpanAt(ends[r]);
                // an op starting after the last idle span before its end ran over none (most ops: the GPU was busy)
                if (last < 0 || starts[r] >= file.written.end[last]) {
                    continue;
                }
                long idle = file.idleBy(last, ends[r]) - file.idleBy(file.lastSpanAt(starts[r]), starts[r]);
                if (idle > 0) {
                    StepLabels l = file.labels.get(file.written.window[last]);
                    long[] g = groups.computeIfAbsent(new CpuOpGroup(file.fileId, l.rank(), l.phase(), kinds[r],
                            nameIds[r]), k -> new long[2]);
                    g[0]++;
                    g[1] += idle;
                }
            }
        });
        for (Map.Entry<CpuOpGroup, long[]> e : groups.entrySet()) {
            CpuOpGroup g = e.getKey();
            out.setInt(0, g.fileId());
            out.setIntOrNull(1, g.rank());
            out.setString(2, g.phase());
            out.setString(3, CPU_KINDS.get(g.kind()));
            out.setInt(4, g.nameId());
            out.setLong(5, e.getValue()[0]);
            out.setLong(6, e.getValue()[1]);
            out.endRow();
        }
    }

    /**
     * The batch's three results, each on its next unread row; a flag per set: whether it has one. The operations'
     * next row is read into fields, each column once.
     */
    private static final class Rows {
        final ResultSet windows;
        final ResultSet syncs;
        boolean window;
        boolean sync;
        private final ColumnRows ops;
        /**
         * The next operation's file ({@link Integer#MAX_VALUE}: none), start, end, launch call's start ({@link #NONE}:
         * none), label.
         */
        int opFile;
        long opStart;
        long opEnd;
        long opLaunch;
        int opLabel;

        Rows(ResultSet windows, ColumnRows ops, ResultSet syncs) throws SQLException {
            this.windows = windows;
            this.ops = ops;
            this.syncs = syncs;
            window = windows.next();
            sync = syncs.next();
            nextOp();
        }

        void nextOp() throws SQLException {
            if (!ops.next()) {
                opFile = Integer.MAX_VALUE;
                return;
            }
            opFile = ops.getInt(1);
            opStart = ops.getLong(2);
            opEnd = ops.getLong(3);
            opLaunch = ops.getLong(4);
            opLabel = ops.getInt(5) - 1;
        }
    }

    /** Idle spans in the order added: each one's window, start and end. */
    private static final class Spans {
        int[] window = new int[64];
        long[] start = new long[64];
        long[] end = new long[64];
        int size;

        void add(int w, long s, long e) {
            if (size == start.length) {
                window = Arrays.copyOf(window, 2 * size);
                start = Arrays.copyOf(start, 2 * size);
                end = Arrays.copyOf(end, 2 * size);
            }
            window[size] = w;
            start[size] = s;
            end[size] = e;
            size++;
        }
    }

    /** One file's pass: its windows and host-sync calls read whole (a few per step), its operations as they come. */
    private static final class FileSweep {
        private final Rows rows;
        private final TableBatch partsOut;
        private final TableBatch spansOut;
        final int fileId;
        // the windows, in start order: step, start, end, its GPU work's start and end (NONE: null)
        private final int[] steps;
        private final long[] windowStart;
        private final long[] windowEnd;
        private final long[] gpuStart;
        private final long[] gpuEnd;
        final List<StepLabels> labels = new ArrayList<>();
        private final long[][] busy;
        private final long[][] idle;
        // the host-sync calls, in start order
        private final long[] syncStart;
        private final long[] syncEnd;
        private final int[] syncName;
        private int sync = -1;
        // what runs: per label (BUSY's order, then any other category) how many, their ends tagged with the label
        private final int[] running = new int[BUSY.size() + 1];
        private final OpenEnds ends = new OpenEnds();
        private int runningAll;
        /** The busy labels that run, a bit each. */
        private int runningSet;
        /** The current window's busy time so far per set of busy labels running ({@link #runningSet}). */
        private final long[] timeBySet = new long[1 << BUSY.size()];
        private long lastEnd = NONE;
        private int window = -1;
        /** The idle spans of the gap not yet ended. */
        private final Spans pending = new Spans();
        /** The idle spans written, in time order, and per span the idle time of those before it ({@link #indexSpans}). */
        final Spans written = new Spans();
        private long[] idleBefore;
        /** Per bucket of 2^bucketShift ns from the first span's start, the last span to start by its start. */
        private int[] spanByBucket;
        private int bucketShift;

        FileSweep(Rows rows, TableBatch partsOut, TableBatch spansOut) throws SQLException {
            this.rows = rows;
            this.partsOut = partsOut;
            this.spansOut = spansOut;
            this.fileId = rows.windows.getInt(1);
            List<long[]> windows = new ArrayList<>(); // step, start, end, GPU start, GPU end
            ResultSet w = rows.windows;
            while (rows.window && w.getInt(1) == fileId) {
                windows.add(new long[] {w.getInt(2), w.getLong(3), orNone(w, 4), orNone(w, 5), orNone(w, 6)});
                labels.add(new StepLabels(intOrNull(w, 7), w.getString(8), intOrNull(w, 9)));
                rows.window = w.next();
            }
            int n = windows.size();
            steps = new int[n];
            windowStart = new long[n];
            windowEnd = new long[n];
            gpuStart = new long[n];
            gpuEnd = new long[n];
            for (int i = 0; i < n; i++) {
                long[] b = windows.get(i);
                steps[i] = (int) b[0];
                windowStart[i] = b[1];
                windowEnd[i] = b[2];
                gpuStart[i] = b[3];
                gpuEnd[i] = b[4];
            }
            busy = new long[n][BUSY.size()];
            idle = new long[n][IDLE.size()];
            ResultSet s = rows.syncs;
            while (rows.sync && s.getInt(1) < fileId) {
                rows.sync = s.next();
            }
            List<long[]> syncs = new ArrayList<>(); // start, end, name id
            while (rows.sync && s.getInt(1) == fileId) {
                syncs.add(new long[] {s.getLong(2), s.getLong(3), s.getInt(4)});
                rows.sync = s.next();
            }
            syncStart = new long[syncs.size()];
            syncEnd = new long[syncs.size()];
            syncName = new int[syncs.size()];
            for (int i = 0; i < syncs.size(); i++) {
                syncStart[i] = syncs.get(i)[0];
                syncEnd[i] = syncs.get(i)[1];
                syncName[i] = (int) syncs.get(i)[2];
            }
            while (rows.opFile < fileId) {
                rows.nextOp();
            }
        }

        void run() throws SQLException {
            long[] cuts = cuts();
            int cut = 0;
            long previous = NONE;
            while (true) {
                long t = Math.min(rows.opFile == fileId ? rows.opStart : Long.MAX_VALUE, ends.first());
                if (cut < cuts.length) {
                    t = Math.min(t, cuts[cut]);
                }
                if (t == Long.MAX_VALUE) {
                    break;
                }
                if (previous != NONE && t > previous) {
                    segment(previous, t);
                }
                while (rows.opFile == fileId && rows.opStart == t) {
                    start(rows.opEnd, rows.opLaunch, rows.opLabel);
                    rows.nextOp();
                }
                while (cut < cuts.length && cuts[cut] == t) {
                    cut++;
                }
                while (ends.first() == t) {
                    int label = ends.firstTag();
                    ends.removeFirst();
                    if (--running[label] == 0 && label < BUSY.size()) {
                        runningSet &= ~(1 << label);
                    }
                    runningAll--;
                    lastEnd = t;
                }
                previous = t;
            }
            for (int i = 0; i < pending.size; i++) {
                span(pending.window[i], pending.start[i], pending.end[i], false, -1);
            }
            closeWindow();
            writeParts();
            indexSpans();
        }

        /** Where segments are cut besides operations: each window's start and end, its step's GPU start and end. */
        private long[] cuts() {
            long[] cuts = new long[4 * steps.length];
            int n = 0;
            for (long[] times : new long[][] {windowStart, windowEnd, gpuStart, gpuEnd}) {
                for (long t : times) {
                    if (t != NONE) {
                        cuts[n++] = t;
                    }
                }
            }
            cuts = Arrays.copyOf(cuts, n);
            Arrays.sort(cuts);
            return cuts;
        }

        private void start(long endNs, long launchNs, int label) throws SQLException {
            int at = label < 0 ? BUSY.size() : label;
            if (running[at]++ == 0 && at < BUSY.size()) {
                runningSet |= 1 << at;
            }
            runningAll++;
            ends.add(endNs, at);
            if (runningAll == 1 && lastEnd != NONE) {
                // the start that ends an idle gap (the first, in label order, of those at its moment)
                boolean late = launchNs != NONE && launchNs >= lastEnd;
                while (sync + 1 < syncStart.length && syncStart[sync + 1] <= lastEnd) {
                    sync++;
                }
                int call = sync >= 0 && syncEnd[sync] >= lastEnd ? sync : -1;
                for (int i = 0; i < pending.size; i++) {
                    span(pending.window[i], pending.start[i], pending.end[i], late, call);
                }
                pending.size = 0;
            }
        }

        /** The moments from {@code t} to {@code next}: what runs is what is open after the events at {@code t}. */
        private void segment(long t, long next) throws SQLException {
            while (window + 1 < steps.length && windowStart[window + 1] <= t) {
                closeWindow();
                window++;
            }
            if (window < 0 || windowEnd[window] == NONE || t >= windowEnd[window]) {
                return;
            }
            if (runningAll == 0) {
                if (lastEnd == NONE) {
                    span(window, t, next, false, -1);
                } else {
                    pending.add(window, t, next);
                }
                return;
            }
            timeBySet[runningSet] += next - t;
        }

        /**
         * The current window's busy time by what ran, shared out: to the categories that ran, equally, else (collectives
         * alone) to the collectives' kinds. A share of a moment is a whole number of sixtieths, so sharing a window's
         * sum per set of labels gives what sharing each moment would.
         */
        private void closeWindow() {
            if (window < 0) {
                return;
            }
            timeBySet[0] = 0; // only categories outside BUSY ran: no part's time
            for (int set = 1; set < timeBySet.length; set++) {
                long ns = timeBySet[set];
                if (ns == 0) {
                    continue;
                }
                timeBySet[set] = 0;
                int work = Integer.bitCount(set & ((1 << WORK) - 1));
                int comm = Integer.bitCount(set >>> WORK);
                for (int label = 0; label < BUSY.size(); label++) {
                    if ((set & 1 << label) != 0 && (label < WORK ? work > 0 : work == 0)) {
                        busy[window][label] += ns * 60 / (label < WORK ? work : comm);
                    }
                }
            }
        }

        /** An idle span of window {@code w}: its part, and the host-sync call (its index; -1: none) that caused it. */
        private void span(int w, long start, long end, boolean launchedLate, int call) throws SQLException {
            int part;
            if (call >= 0) {
                part = IDLE_SYNC;
            } else if (gpuStart[w] == NONE) {
                part = IDLE_OTHER;
            } else if (start < gpuStart[w]) {
                part = IDLE_BEFORE;
            } else if (start >= gpuEnd[w]) {
                part = IDLE_AFTER;
            } else {
                part = launchedLate ? IDLE_LAUNCH : IDLE_OTHER;
            }
            idle[w][part] += end - start;
            written.add(w, start, end);
            spansOut.setInt(0, fileId);
            spansOut.setInt(1, steps[w]);
            spansOut.setLong(2, start);
            spansOut.setLong(3, end);
            if (call >= 0) {
                spansOut.setLong(4, syncStart[call]);
                spansOut.setInt(5, syncName[call]);
            }
            spansOut.setUtf8(6, IDLE_UTF8[part]);
            spansOut.endRow();
        }

        /**
         * Indexes the spans written for {@link #lastSpanAt} and {@link #idleBy}: the idle time before each span, and the
         * time from the first span's start to the last one's cut into as many buckets of a power of two nanoseconds as
         * there are spans, or up to twice as many, each with the last span to start by the bucket's start.
         */
        private void indexSpans() {
            int spans = written.size;
            long[] spanStart = written.start;
            idleBefore = new long[spans];
            for (int i = 1; i < spans; i++) {
                idleBefore[i] = idleBefore[i - 1] + written.end[i - 1] - spanStart[i - 1];
            }
            if (spans == 0) {
                return;
            }
            long range = spanStart[spans - 1] - spanStart[0];
            while (range >>> bucketShift >= spans) {
                bucketShift++;
            }
            spanByBucket = new int[(int) (range >>> bucketShift) + 1];
            for (int b = 0, i = 0; b < spanByBucket.length; b++) {
                long bucketStart = spanStart[0] + ((long) b << bucketShift);
                while (i + 1 < spans && spanStart[i + 1] <= bucketStart) {
                    i++;
                }
                spanByBucket[b] = i;
            }
        }

        /** The last idle span to start at or before {@code ns}; -1: none. A CPU op looks up two: a search in a bucket. */
        int lastSpanAt(long ns) {
            int spans = written.size;
            if (spans == 0 || ns < written.start[0]) {
                return -1;
            }
            long b = (ns - written.start[0]) >>> bucketShift;
            if (b >= spanByBucket.length - 1) {
                return b == spanByBucket.length - 1 ? spanAtOrBefore(spanByBucket[(int) b], spans - 1, ns) : spans - 1;
            }
            return spanAtOrBefore(spanByBucket[(int) b], spanByBucket[(int) b + 1], ns);
        }

        /** The last span from {@code lo} to {@code hi} to start at or before {@code ns}, {@code lo}'s start being so. */
        private int spanAtOrBefore(int lo, int hi, long ns) {
            int i = Arrays.binarySearch(written.start, lo, hi + 1, ns);
            return i >= 0 ? i : -i - 2;
        }

        /** The idle time of the file's spans up to {@code ns}; {@code last} is {@link #lastSpanAt}({@code ns}). */
        long idleBy(int last, long ns) {
            return last < 0 ? 0
                    : idleBefore[last] + Math.min(ns - written.start[last], written.end[last] - written.start[last]);
        }

        private void writeParts() throws SQLException {
            for (int w = 0; w < steps.length; w++) {
                for (int label = 0; label < BUSY.size(); label++) {
                    if (busy[w][label] > 0) {
                        part(w, BUSY.get(label), (busy[w][label] + 30) / 60);
                    }
                }
                for (int p = 0; p < IDLE.size(); p++) {
                    if (idle[w][p] > 0) {
                        part(w, IDLE.get(p), idle[w][p]);
                    }
                }
            }
        }

        private void part(int w, String part, long ns) throws SQLException {
            StepLabels l = labels.get(w);
            partsOut.setInt(0, fileId);
            partsOut.setIntOrNull(1, l.rank());
            partsOut.setInt(2, steps[w]);
            partsOut.setString(3, l.phase());
            partsOut.setIntOrNull(4, l.phaseIndex());
            partsOut.setString(5, part);
            partsOut.setLong(6, ns);
            partsOut.endRow();
        }

        private static Integer intOrNull(ResultSet rs, int column) throws SQLException {
            int v = rs.getInt(column);
            return rs.wasNull() ? null : v;
        }

        private static long orNone(ResultSet rs, int column) throws SQLException {
            long v = rs.getLong(column);
            return rs.wasNull() ? NONE : v;
        }
    }
}
