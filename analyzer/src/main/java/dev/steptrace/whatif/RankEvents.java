package dev.steptrace.whatif;

import dev.steptrace.store.KeptAnalysis;
import dev.steptrace.store.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One rank's events for a replay of a run of its steps (docs/whatif.md, "The model"), as arrays: its GPU
 * operations in time order, the CPU calls that launch them or wait for the GPU (with the steps' annotation
 * starts and the last one's end as markers) in time order, and the steps' windows. Read from the store: the raw
 * tables for the events, the kept analysis for classes, collective instances and windows. A capture is replayed
 * a run of steps at a time ({@link #chunks}), so that what a replay holds in memory does not grow with the
 * capture: each run's windows are the steps measured ({@link #first} to {@link #last}), the step before them
 * (what their first dependencies start from) and the step after (where the last one ends).
 */
final class RankEvents {
    static final byte LAUNCH = 0;
    static final byte SYNC = 1;
    static final byte MARK = 2;
    /** The class of an operation whose name, kind and variant the capture's kernel_classes lack. */
    private static final String[] UNCLASSED = {"other", ""};
    /** Rows per Arrow batch of a run's operations and calls. */
    private static final int BATCH_ROWS = 1 << 14;

    final int fileId;
    final int rank;
    /** The rank's launch latency and GPU gap between queued operations, taken as "at once" (replay_latencies). */
    final long launchLatencyNs;
    final long streamGapNs;

    // GPU operations, in start order
    int ops;
    long[] opStart;
    long[] opDur;
    int[] opStream;
    long[] opCorrelation;
    int[] opNameId;
    String[] opCategory;
    String[] opSub;
    /** Per op, its index among the rank's matched collectives (the coll* arrays); -1: none. */
    int[] opColl;

    // matched collective operations, in op order: instance, transfer, message bytes (-1: unknown), group, type
    int colls;
    int[] collInstance;
    long[] collTransfer;
    long[] collBytes;
    int[] collGroup;
    String[] collType;

    // CPU calls and markers, in start order
    int cpu;
    long[] cpuStart;
    long[] cpuDur;
    long[] cpuThread;
    byte[] cpuKind;
    long[] cpuCorrelation;

    // steps, in window order; those measured: first (inclusive) to last (exclusive)
    final List<Window> windows;
    final int first;
    final int last;
    /** The GPU operations' names by id (empty unless {@link #loadNames loaded}), shared by a rank's runs. */
    final Map<Integer, String> names;
    /** The category and subcategory of each name id, kind and variant ({@link #classKey}), shared by a rank's runs. */
    private final Map<Long, String[]> classes;

    /** A step's window as the analysis kept it, and its GPU operations (how much a replay of it holds). */
    record Window(int step, String phase, int phaseIndex, long start, long end, long cpuStart, long cpuEnd,
                  Long gpuStart, long ops) {}

    private RankEvents(int fileId, int rank, long launchLatencyNs, long streamGapNs, List<Window> windows, int first,
                       int last, Map<Integer, String> names, Map<Long, String[]> classes) {
        this.fileId = fileId;
        this.rank = rank;
        this.launchLatencyNs = launchLatencyNs;
        this.streamGapNs = streamGapNs;
        this.windows = windows;
        this.first = first;
        this.last = last;
        this.names = names;
        this.classes = classes;
    }

    /** What a file's steps say of its rank: its number, launch latency and stream gap. */
    private record Rank(int rank, long launchLatencyNs, long streamGapNs) {}

    /** Every rank of a kept analysis with all its windows, no events loaded: what {@link #slice} cuts runs from. */
    static List<RankEvents> windows(KeptAnalysis a) throws SQLException {
        Map<Integer, List<Window>> byFile = new LinkedHashMap<>();
        Map<Integer, Rank> ranks = new HashMap<>();
        a.query("replay-steps", Map.of(), rs -> {
            int fileId = rs.getInt(1);
            ranks.put(fileId, new Rank(rs.getInt(2), rs.getLong(12), rs.getLong(13)));
            long gpu = rs.getLong(10);
            Long gpuStart = rs.wasNull() ? null : gpu;
            byFile.computeIfAbsent(fileId, f -> new ArrayList<>()).add(new Window(rs.getInt(3), rs.getString(4),
                    rs.getInt(5), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9), gpuStart, rs.getLong(11)));
        });
        Map<Integer, Map<Long, String[]>> classes = new HashMap<>();
        // categories and subcategories are few: one String each, not one per row
        Map<String, String> pool = new HashMap<>();
        a.query("replay-classes", Map.of(), rs -> {
            String[] k = {pool.computeIfAbsent(rs.getString(5), x -> x), pool.computeIfAbsent(rs.getString(6), x -> x)};
            long key = classKey(rs.getInt(2), rs.getInt(3), rs.getInt(4));
            classes.computeIfAbsent(rs.getInt(1), f -> new HashMap<>()).put(key, k);
        });
        List<RankEvents> out = new ArrayList<>();
        byFile.forEach((file, w) -> {
            Rank r = ranks.get(file);
            out.add(new RankEvents(file, r.rank(), r.launchLatencyNs(), r.streamGapNs(), w, 0, w.size(),
                    new HashMap<>(), classes.getOrDefault(file, Map.of())));
        });
        return out;
    }

    /**
     * Runs of windows, the same indices on every rank ({@code [from, to)}), each of at most {@code maxOps} GPU
     * operations over all ranks (and at least one window).
     */
    static List<int[]> chunks(List<RankEvents> ranks, long maxOps) {
        int n = ranks.stream().mapToInt(r -> r.windows.size()).max().orElse(0);
        List<int[]> out = new ArrayList<>();
        int from = 0;
        long ops = 0;
        for (int w = 0; w < n; w++) {
            long own = 0;
            for (RankEvents r : ranks) {
                own += w < r.windows.size() ? r.windows.get(w).ops() : 0;
            }
            if (w > from && ops + own > maxOps) {
                out.add(new int[] {from, w});
                from = w;
                ops = 0;
            }
            ops += own;
        }
        if (from < n) {
            out.add(new int[] {from, n});
        }
        return out;
    }

    /**
     * The rank's windows {@code [from, to)} to measure, with the window before and the one after, events not
     * loaded; null when the rank has none of them.
     */
    RankEvents slice(int from, int to) {
        if (from >= windows.size()) {
            return null;
        }
        int lo = Math.max(0, from - 1);
        int hi = Math.min(windows.size(), to + 1);
        return new RankEvents(fileId, rank, launchLatencyNs, streamGapNs, windows.subList(lo, hi), from - lo,
                Math.min(to, windows.size()) - lo, names, classes);
    }

    /**
     * Reads the events of the windows' span: {@code collectives}, with the collective instances matched across
     * ranks (without, each collective is an operation of its own).
     */
    void load(KeptAnalysis a, List<String> hostSyncs, List<String> graphLaunches, boolean collectives)
            throws SQLException {
        long from = windows.get(0).start();
        long to = windows.get(windows.size() - 1).end();
        loadOps(a, from, to);
        if (!collectives) {
            Arrays.fill(opColl, -1);
            colls = 0;
        }
        loadCalls(a, from, to, String.join(",", hostSyncs), String.join(",", graphLaunches));
    }

    /** Reads the names of the rank's GPU operations (for changes that pick kernels by name). */
    void loadNames(KeptAnalysis a) throws SQLException {
        a.query("replay-names", Map.of("file_id", fileId), rs -> names.put(rs.getInt(1), rs.getString(2)));
    }

    private void loadOps(KeptAnalysis a, long from, long to) throws SQLException {
        int[] n = {0};
        grow(1 << 12);
        growColls(1 << 8);
        // types are few: one String each, not one per row
        Map<String, String> pool = new HashMap<>();
        int[] kind = new int[BATCH_ROWS];
        int[] variant = new int[BATCH_ROWS];
        a.queryBatches("replay-ops", Map.of("file_id", fileId, "from_ns", from, "to_ns", to), BATCH_ROWS, rows -> {
            List<FieldVector> v = rows.getFieldVectors();
            int at = n[0];
            int count = rows.getRowCount();
            n[0] += count;
            if (n[0] > opStart.length) {
                grow(Math.max(n[0], 2 * opStart.length));
            }
            Sql.longs(v.get(0), opStart, at, 0);
            Sql.longs(v.get(1), opDur, at, 0);
            Sql.ints(v.get(2), opStream, at, -1);
            Sql.longs(v.get(3), opCorrelation, at, Long.MIN_VALUE);
            Sql.ints(v.get(4), opNameId, at, 0);
            Sql.ints(v.get(5), kind, 0, 0);
            Sql.ints(v.get(6), variant, 0, 0);
            FieldVector instance = v.get(7);
            for (int r = 0; r < count; r++) {
                int i = at + r;
                String[] k = classes.getOrDefault(classKey(opNameId[i], kind[r], variant[r]), UNCLASSED);
                opCategory[i] = k[0];
                opSub[i] = k[1];
                opColl[i] = instance.isNull(r) ? -1 : coll(v, r, pool);
            }
        });
        ops = n[0];
        grow(ops);
        growColls(colls);
    }

    /** Adds row {@code r}'s matched collective to the coll* arrays; its index there. */
    private int coll(List<FieldVector> v, int r, Map<String, String> pool) {
        int c = colls++;
        if (c == collInstance.length) {
            growColls(2 * c);
        }
        collInstance[c] = (int) Sql.longAt(v.get(7), r, 0);
        collTransfer[c] = Sql.longAt(v.get(8), r, 0);
        collBytes[c] = Sql.longAt(v.get(9), r, -1);
        collGroup[c] = (int) Sql.longAt(v.get(10), r, 0);
        collType[c] = stringAt(v.get(11), r, pool);
        return c;
    }

    /** An operation's name id, kind (its code) and variant as one key of {@link #classes}. */
    private static long classKey(int nameId, int kind, int variant) {
        return (long) nameId << 32 | (long) kind << 24 | variant;
    }

    /** The collective instance op k is part of across ranks; -1: none. */
    int instance(int k) {
        return opColl[k] < 0 ? -1 : collInstance[opColl[k]];
    }

    private void grow(int size) {
        opStart = copy(opStart, size);
        opDur = copy(opDur, size);
        opStream = copy(opStream, size);
        opCorrelation = copy(opCorrelation, size);
        opNameId = copy(opNameId, size);
        opCategory = copy(opCategory, size);
        opSub = copy(opSub, size);
        opColl = copy(opColl, size);
    }

    private void growColls(int size) {
        collInstance = copy(collInstance, size);
        collTransfer = copy(collTransfer, size);
        collBytes = copy(collBytes, size);
        collGroup = copy(collGroup, size);
        collType = copy(collType, size);
    }

    private void loadCalls(KeptAnalysis a, long from, long to, String hostSyncs, String graphLaunches)
            throws SQLException {
        Calls calls = new Calls();
        a.queryBatches("replay-calls", Map.of("file_id", fileId, "from_ns", from, "to_ns", to, "host_syncs", hostSyncs,
                        "graph_launches", graphLaunches), BATCH_ROWS, calls::add);
        // The step annotations' starts, and the last one's end, on the thread that launches the most work.
        Map<Long, Integer> launchesPerThread = new HashMap<>();
        for (int i = 0; i < calls.n; i++) {
            launchesPerThread.merge(calls.thread[i], 1, Integer::sum);
        }
        long main = launchesPerThread.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElse(0L);
        List<Long> marks = new ArrayList<>();
        windows.forEach(w -> marks.add(w.cpuStart()));
        if (!windows.isEmpty()) {
            marks.add(windows.get(windows.size() - 1).cpuEnd());
        }
        marks.sort(null);
        cpu = calls.n + marks.size();
        cpuStart = new long[cpu];
        cpuDur = new long[cpu];
        cpuThread = new long[cpu];
        cpuKind = new byte[cpu];
        cpuCorrelation = new long[cpu];
        // the calls come in (start, kind, thread) order; a mark goes after the calls that start with it
        for (int i = 0, c = 0, m = 0; i < cpu; i++) {
            if (m == marks.size() || c < calls.n && calls.start[c] <= marks.get(m)) {
                cpuStart[i] = calls.start[c];
                cpuDur[i] = Math.max(0, calls.dur[c]);
                cpuThread[i] = calls.thread[c];
                cpuKind[i] = calls.kind[c];
                cpuCorrelation[i] = calls.correlation[c];
                c++;
            } else {
                cpuStart[i] = marks.get(m++);
                cpuThread[i] = main;
                cpuKind[i] = MARK;
                cpuCorrelation[i] = Long.MIN_VALUE;
            }
        }
    }

    /** A run's CPU calls as replay-calls returns them, each batch's columns copied whole. */
    private static final class Calls {
        int n;
        long[] start = new long[1 << 12];
        long[] dur = new long[1 << 12];
        long[] thread = new long[1 << 12];
        long[] correlation = new long[1 << 12];
        byte[] kind = new byte[1 << 12];

        void add(VectorSchemaRoot rows) {
            List<FieldVector> v = rows.getFieldVectors();
            int at = n;
            n += rows.getRowCount();
            if (n > start.length) {
                int size = Math.max(n, 2 * start.length);
                start = Arrays.copyOf(start, size);
                dur = Arrays.copyOf(dur, size);
                thread = Arrays.copyOf(thread, size);
                correlation = Arrays.copyOf(correlation, size);
                kind = Arrays.copyOf(kind, size);
            }
            Sql.longs(v.get(0), thread, at, 0);
            Sql.longs(v.get(1), start, at, 0);
            Sql.longs(v.get(2), dur, at, 0);
            Sql.longs(v.get(3), correlation, at, Long.MIN_VALUE);
            BitVector sync = (BitVector) v.get(4);
            for (int r = 0; r < n - at; r++) {
                kind[at + r] = !sync.isNull(r) && sync.get(r) != 0 ? SYNC : LAUNCH;
            }
        }
    }

    /** A text column's value at row {@code r}, one String per distinct value ({@code pool}); NULL: null. */
    private static String stringAt(FieldVector v, int r, Map<String, String> pool) {
        return v.isNull(r) ? null : pool.computeIfAbsent(v.getObject(r).toString(), x -> x);
    }

    long opEnd(int k) {
        return opStart[k] + opDur[k];
    }

    private static long[] copy(long[] a, int n) {
        return a == null ? new long[n] : Arrays.copyOf(a, n);
    }

    private static int[] copy(int[] a, int n) {
        return a == null ? new int[n] : Arrays.copyOf(a, n);
    }

    private static String[] copy(String[] a, int n) {
        return a == null ? new String[n] : Arrays.copyOf(a, n);
    }
}
