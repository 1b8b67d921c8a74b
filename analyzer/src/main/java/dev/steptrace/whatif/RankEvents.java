package dev.steptrace.whatif;

import dev.steptrace.analysis.StoredAnalysis;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One rank's events for a replay of its steps (docs/whatif.md, "The model"), as arrays: its GPU operations in
 * time order, the CPU calls that launch them or wait for the GPU (with the steps' annotation starts and the last
 * one's end as markers) in time order, and its step windows. Read from the store: the raw tables for the events,
 * the kept analysis for classes, collective instances and windows.
 */
final class RankEvents {
    static final byte LAUNCH = 0;
    static final byte SYNC = 1;
    static final byte MARK = 2;

    final int fileId;
    final int rank;

    // GPU operations, in start order
    int ops;
    long[] opStart;
    long[] opDur;
    int[] opStream;
    long[] opCorrelation;
    int[] opNameId;
    String[] opCategory;
    String[] opSub;
    int[] opInstance;
    long[] opWait;
    long[] opTransfer;
    long[] opBytes;
    int[] opGroup;
    String[] opType;

    // CPU calls and markers, in start order
    int cpu;
    long[] cpuStart;
    long[] cpuDur;
    long[] cpuThread;
    byte[] cpuKind;
    long[] cpuCorrelation;

    // steps, in window order
    final List<Window> windows = new ArrayList<>();
    final Map<Integer, String> names = new HashMap<>();

    /** A step's window as the analysis kept it, and where its compute time came from. */
    record Window(int step, String phase, int phaseIndex, long start, long end, long cpuStart, long cpuEnd,
                  Long gpuStart, long computeNs) {}

    private RankEvents(int fileId, int rank) {
        this.fileId = fileId;
        this.rank = rank;
    }

    /** Every rank of a kept analysis, each with its windows; {@code names}: also the GPU operations' names. */
    static List<RankEvents> load(StoredAnalysis a, List<String> hostSyncs, List<String> graphLaunches, boolean names)
            throws SQLException {
        Map<Integer, RankEvents> byFile = new LinkedHashMap<>();
        a.query("replay-steps", Map.of(), rs -> {
            int fileId = rs.getInt(1);
            int rank = rs.getInt(2);
            RankEvents r = byFile.computeIfAbsent(fileId, f -> new RankEvents(f, rank));
            long gpu = rs.getLong(10);
            Long gpuStart = rs.wasNull() ? null : gpu;
            r.windows.add(new Window(rs.getInt(3), rs.getString(4), rs.getInt(5), rs.getLong(6), rs.getLong(7),
                    rs.getLong(8), rs.getLong(9), gpuStart, rs.getLong(11)));
        });
        for (RankEvents r : byFile.values()) {
            r.loadOps(a);
            r.loadCalls(a, String.join(",", hostSyncs), String.join(",", graphLaunches));
            if (names) {
                a.query("replay-names", Map.of("file_id", r.fileId), rs -> r.names.put(rs.getInt(1), rs.getString(2)));
            }
        }
        return new ArrayList<>(byFile.values());
    }

    private void loadOps(StoredAnalysis a) throws SQLException {
        int[] n = {0};
        grow(1 << 12);
        a.query("replay-ops", Map.of("file_id", fileId), rs -> {
            int i = n[0]++;
            if (i == opStart.length) {
                grow(2 * i);
            }
            opStart[i] = rs.getLong(1);
            opDur[i] = rs.getLong(2);
            long stream = rs.getLong(3);
            opStream[i] = rs.wasNull() ? -1 : (int) stream;
            long corr = rs.getLong(4);
            opCorrelation[i] = rs.wasNull() ? Long.MIN_VALUE : corr;
            opNameId[i] = rs.getInt(5);
            opCategory[i] = rs.getString(6);
            opSub[i] = rs.getString(7);
            int inst = rs.getInt(8);
            opInstance[i] = rs.wasNull() ? -1 : inst;
            opWait[i] = rs.getLong(9);
            opTransfer[i] = rs.getLong(10);
            long bytes = rs.getLong(11);
            opBytes[i] = rs.wasNull() ? -1 : bytes;
            opGroup[i] = rs.getInt(12);
            opType[i] = rs.getString(13);
        });
        ops = n[0];
    }

    private void grow(int size) {
        opStart = copy(opStart, size);
        opDur = copy(opDur, size);
        opStream = copy(opStream, size);
        opCorrelation = copy(opCorrelation, size);
        opNameId = copy(opNameId, size);
        opCategory = copy(opCategory, size);
        opSub = copy(opSub, size);
        opInstance = copy(opInstance, size);
        opWait = copy(opWait, size);
        opTransfer = copy(opTransfer, size);
        opBytes = copy(opBytes, size);
        opGroup = copy(opGroup, size);
        opType = copy(opType, size);
    }

    private void loadCalls(StoredAnalysis a, String hostSyncs, String graphLaunches) throws SQLException {
        List<long[]> calls = new ArrayList<>();
        a.query("replay-calls", Map.of("file_id", fileId, "host_syncs", hostSyncs, "graph_launches", graphLaunches),
                rs -> {
                    long corr = rs.getLong(4);
                    boolean none = rs.wasNull();
                    calls.add(new long[] {rs.getLong(2), rs.getLong(3), rs.getLong(1), rs.getBoolean(5) ? SYNC : LAUNCH,
                            none ? Long.MIN_VALUE : corr});
                });
        // The step annotations' starts, and the last one's end, on the thread that launches the most work.
        Map<Long, Integer> launchesPerThread = new HashMap<>();
        calls.forEach(c -> launchesPerThread.merge(c[2], 1, Integer::sum));
        long main = launchesPerThread.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElse(0L);
        for (Window w : windows) {
            calls.add(new long[] {w.cpuStart(), 0, main, MARK, Long.MIN_VALUE});
        }
        if (!windows.isEmpty()) {
            Window last = windows.get(windows.size() - 1);
            calls.add(new long[] {last.cpuEnd(), 0, main, MARK, Long.MIN_VALUE});
        }
        calls.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[3], y[3]));
        cpu = calls.size();
        cpuStart = new long[cpu];
        cpuDur = new long[cpu];
        cpuThread = new long[cpu];
        cpuKind = new byte[cpu];
        cpuCorrelation = new long[cpu];
        for (int i = 0; i < cpu; i++) {
            long[] c = calls.get(i);
            cpuStart[i] = c[0];
            cpuDur[i] = Math.max(0, c[1]);
            cpuThread[i] = c[2];
            cpuKind[i] = (byte) c[3];
            cpuCorrelation[i] = c[4];
        }
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
