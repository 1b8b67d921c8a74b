package dev.steptrace.testsupport;

import dev.steptrace.synth.nsys.NsysSqliteWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One process's Nsight Systems capture, described event by event with absolute epoch times, and
 * turned into the export's tables ({@link #export}) with the documented columns: times relative to
 * the session start, names through {@code StringIds}, serialized {@code globalTid}/{@code globalPid}
 * ({@code <HW:8><VM:8><PID:24><TID:24>}, VM 1 as in real exports), runtime names with nsys's
 * {@code _vNNNN} suffix as given.
 *
 * <p>{@link #minimalSchema} writes what an older or leaner export has: no {@code shortName},
 * {@code mangledName}, {@code graphNodeId} or {@code graphId} columns, no
 * {@code TARGET_INFO_CUDA_CONTEXT_INFO}, {@code TARGET_INFO_GPU}, {@code META_DATA_*},
 * {@code ThreadNames} or {@code PROCESSES}; tables without rows are not written at all (nsys's lazy
 * export).
 */
public final class NsysCapture {
    public static final int EVENT_CLASS_RUNTIME = 0;
    public static final int EVENT_CLASS_DRIVER = 1;
    public static final int COPY_HTOD = 1;
    public static final int COPY_DTOH = 2;
    public static final int MEM_PAGEABLE = 0;
    public static final int MEM_PINNED = 1;
    public static final int MEM_DEVICE = 2;
    public static final int SYNC_STREAM = 3;

    public final long sessionStart;
    public final long pid;
    /** Lean schema: see the class comment. */
    public boolean minimalSchema;
    /** The rank in MPI_RANKS, or null for no MPI_RANKS table. */
    public Integer mpiRank;
    /** META_DATA_EXPORT's EXPORT_PARAM_TIME_NORMALIZE: times written as epoch nanoseconds. */
    public boolean tsNormalized;
    public String gpuName = "NVIDIA H200";
    public String hostName = "node-a";

    private final List<String> strings = new ArrayList<>();
    private final Map<String, Integer> stringIds = new HashMap<>();
    private final List<Map<String, Object>> kernels = new ArrayList<>();
    private final List<Map<String, Object>> memcpys = new ArrayList<>();
    private final List<Map<String, Object>> memsets = new ArrayList<>();
    private final List<Map<String, Object>> syncs = new ArrayList<>();
    private final List<Map<String, Object>> graphs = new ArrayList<>();
    private final List<Map<String, Object>> runtime = new ArrayList<>();
    private final List<Map<String, Object>> nvtx = new ArrayList<>();
    private final Map<Long, String> threads = new LinkedHashMap<>();
    private final List<Integer> devices = new ArrayList<>();

    public NsysCapture(long sessionStart, long pid) {
        this.sessionStart = sessionStart;
        this.pid = pid;
        string("[Unknown]");
    }

    public int string(String s) {
        return stringIds.computeIfAbsent(s, k -> {
            strings.add(k);
            return strings.size() - 1;
        });
    }

    public long globalTid(long tid) {
        return (1L << 48) | (pid << 24) | tid;
    }

    public long globalPid() {
        return (1L << 48) | (pid << 24);
    }

    /** Rows hold absolute times until {@link #export} makes them relative to the session (unless normalized). */
    private static long rel(long abs) {
        return abs;
    }

    private Map<String, Object> gpu(long start, long dur, int device, long stream, Long corr) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("start", rel(start));
        m.put("end", rel(start) + dur);
        m.put("deviceId", device);
        m.put("contextId", 1);
        m.put("streamId", stream);
        m.put("correlationId", corr);
        m.put("globalPid", globalPid());
        if (!devices.contains(device)) {
            devices.add(device);
        }
        return m;
    }

    /** A kernel; {@code graphNodeId} / {@code graphId} &lt; 0 for none. */
    public NsysCapture kernel(long start, long dur, int device, long stream, Long corr, String name,
                              long graphNodeId, long graphId) {
        Map<String, Object> m = gpu(start, dur, device, stream, corr);
        m.put("demangledName", string(name));
        m.put("shortName", string(NsysSqliteWriter.shortName(name)));
        m.put("mangledName", null);
        m.put("launchType", 1);
        m.put("registersPerThread", 64);
        m.put("gridX", 132);
        m.put("gridY", 2);
        m.put("gridZ", 1);
        m.put("blockX", 256);
        m.put("blockY", 1);
        m.put("blockZ", 1);
        m.put("staticSharedMemory", 0);
        m.put("dynamicSharedMemory", 49152);
        m.put("localMemoryPerThread", 0);
        m.put("localMemoryTotal", 0);
        m.put("gridId", kernels.size() + 1);
        m.put("graphNodeId", graphNodeId >= 0 ? graphNodeId : null);
        m.put("graphId", graphId >= 0 ? graphId : null);
        kernels.add(m);
        return this;
    }

    /** The last kernel's row (column → value), to give it unusual values. */
    public Map<String, Object> lastKernel() {
        return kernels.get(kernels.size() - 1);
    }

    public NsysCapture kernel(long start, long dur, int device, long stream, long corr, String name) {
        return kernel(start, dur, device, stream, corr, name, -1, -1);
    }

    public NsysCapture memcpy(long start, long dur, int device, long stream, long corr, long bytes, int copyKind,
                              int srcKind, int dstKind) {
        Map<String, Object> m = gpu(start, dur, device, stream, corr);
        m.put("bytes", bytes);
        m.put("copyKind", copyKind);
        m.put("srcKind", srcKind);
        m.put("dstKind", dstKind);
        m.put("srcDeviceId", device);
        m.put("dstDeviceId", device);
        memcpys.add(m);
        return this;
    }

    public NsysCapture memset(long start, long dur, int device, long stream, long corr, long bytes, int memKind) {
        Map<String, Object> m = gpu(start, dur, device, stream, corr);
        m.put("value", 0);
        m.put("bytes", bytes);
        m.put("memKind", memKind);
        memsets.add(m);
        return this;
    }

    public NsysCapture sync(long start, long dur, int device, long stream, long corr, int syncType) {
        Map<String, Object> m = gpu(start, dur, device, stream, corr);
        m.put("syncType", syncType);
        m.put("eventId", 0);
        syncs.add(m);
        return this;
    }

    /** A whole CUDA graph replay ({@code --cuda-graph-trace=graph}). */
    public NsysCapture graphReplay(long start, long dur, int device, long stream, long corr, long graphId) {
        Map<String, Object> m = gpu(start, dur, device, stream, corr);
        m.put("graphId", graphId);
        m.put("graphExecId", graphId + 100);
        graphs.add(m);
        return this;
    }

    /** A CUDA runtime ({@code driver} false) or driver API call, name as nsys writes it. */
    public NsysCapture call(long start, long dur, long tid, long corr, String name, boolean driver) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("start", rel(start));
        m.put("end", rel(start) + dur);
        m.put("eventClass", driver ? EVENT_CLASS_DRIVER : EVENT_CLASS_RUNTIME);
        m.put("globalTid", globalTid(tid));
        m.put("correlationId", corr);
        m.put("nameId", string(name));
        m.put("returnValue", 0);
        runtime.add(m);
        return this;
    }

    private Map<String, Object> nvtxRow(long start, Long end, int eventType, long tid) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("start", rel(start));
        m.put("end", end == null ? null : rel(end));
        m.put("eventType", eventType);
        m.put("globalTid", globalTid(tid));
        m.put("domainId", 0);
        nvtx.add(m);
        return m;
    }

    /** An NVTX push/pop range with inline text, in the default domain (domainId 0) or another. */
    public NsysCapture pushPop(long start, long dur, long tid, String text, long domainId) {
        Map<String, Object> m = nvtxRow(start, start + dur, 59, tid);
        m.put("text", text);
        m.put("domainId", domainId);
        return this;
    }

    public NsysCapture pushPop(long start, long dur, long tid, String text) {
        return pushPop(start, dur, tid, text, 0);
    }

    /** An NVTX push/pop range named by a registered string ({@code textId} into StringIds). */
    public NsysCapture pushPopRegistered(long start, long dur, long tid, String text) {
        Map<String, Object> m = nvtxRow(start, start + dur, 59, tid);
        m.put("textId", string(text));
        return this;
    }

    public NsysCapture startEnd(long start, long dur, long tid, String text) {
        Map<String, Object> m = nvtxRow(start, start + dur, 60, tid);
        m.put("text", text);
        m.put("endGlobalTid", globalTid(tid));
        return this;
    }

    public NsysCapture mark(long at, long tid, String text) {
        Map<String, Object> m = nvtxRow(at, null, 34, tid);
        m.put("text", text);
        return this;
    }

    /** A range still open at the end of the capture. */
    public NsysCapture unterminated(long start, long tid, String text) {
        Map<String, Object> m = nvtxRow(start, null, 59, tid);
        m.put("text", text);
        return this;
    }

    /** nvtxDomainCreate: the eventType-75 row naming a domain (by a registered string when asked). */
    public NsysCapture domain(long at, long tid, long domainId, String name, boolean registered) {
        Map<String, Object> m = nvtxRow(at, null, 75, tid);
        m.put("domainId", domainId);
        if (registered) {
            m.put("textId", string(name));
        } else {
            m.put("text", name);
        }
        return this;
    }

    public NsysCapture threadName(long tid, String name) {
        threads.put(tid, name);
        return this;
    }

    /** The export's tables. */
    public NsysExport export() {
        NsysExport e = new NsysExport();
        boolean full = !minimalSchema;
        if (full) {
            NsysExport.Table meta = e.table("META_DATA_EXPORT", "name TEXT", "value TEXT");
            meta.row("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems");
            meta.row("EXPORT_PRODUCT_VERSION", "2024.6.2.225");
            meta.row("EXPORT_SCHEMA_VERSION", "3.16.1");
            meta.row("EXPORT_PARAM_TIME_NORMALIZE", tsNormalized ? "true" : "false");
            NsysExport.Table cap = e.table("META_DATA_CAPTURE", "name TEXT", "value TEXT");
            cap.row("CAPTURE_EVENT_TYPE", "NvtxEvents");
            cap.row("CAPTURE_EVENT_TYPE", "Cuda");
            cap.row("PROCESS_0:ENVIRONMENT_VARIABLE", "SECRET_TOKEN=\"x\"");
            cap.row("PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE", graphs.isEmpty() ? "Node" : "Graph");
            e.table("TARGET_INFO_SYSTEM_ENV", "globalVid INTEGER", "devStateName TEXT", "name TEXT", "nameEnum INTEGER",
                    "value TEXT").row(1L << 48, "Local (CLI)", "Hostname", 0, hostName);
        }
        e.table("TARGET_INFO_SESSION_START_TIME", "utcEpochNs INTEGER", "utcTime TEXT", "localTime TEXT")
                .row(sessionStart, "2026-10-01T12:00:00", "2026-10-01T12:00:00");
        if (full) {
            NsysExport.Table gpu = e.table("TARGET_INFO_GPU", "vmId INTEGER", "id INTEGER", "name TEXT",
                    "busLocation TEXT", "isDiscrete INTEGER", "l2CacheSize INTEGER", "totalMemory UINT64",
                    "memoryBandwidth INTEGER", "clockRate INTEGER", "smCount INTEGER", "uuid TEXT", "chipName TEXT",
                    "cuDevice INTEGER", "computeMajor INTEGER", "computeMinor INTEGER");
            for (int d : devices) {
                gpu.row(1L << 48, d, gpuName, "0000:0" + d + ":00.0", 1, 62914560, 150_754_820_096L, 4_800_000_000_000L,
                        1_980_000_000, 132, "uuid-" + d, "GH100", d, 9, 0);
            }
            NsysExport.Table ctx = e.table("TARGET_INFO_CUDA_CONTEXT_INFO", "nullStreamId INTEGER", "hwId INTEGER",
                    "vmId INTEGER", "processId INTEGER", "deviceId INTEGER", "contextId INTEGER");
            for (int d : devices) {
                ctx.row(7, 0, 1, pid, d, 1);
            }
            e.table("PROCESSES", "globalPid INTEGER", "pid INTEGER", "name TEXT")
                    .row(globalPid(), pid, "python3")
                    .row((1L << 48) | (1L << 24), 1L, "systemd");
        }
        if (mpiRank != null) {
            e.table("MPI_RANKS", "globalTid INTEGER", "rank INTEGER").row(globalTid(pid), (long) mpiRank);
        }
        String[] gpuCommon = {"start INTEGER", "end INTEGER", "deviceId INTEGER", "contextId INTEGER",
            "greenContextId INTEGER", "streamId INTEGER", "correlationId UINT32", "globalPid INTEGER"};
        if (!kernels.isEmpty()) {
            List<String> cols = new ArrayList<>(List.of(gpuCommon));
            cols.add("demangledName INTEGER");
            if (full) {
                cols.add("shortName INTEGER");
                cols.add("mangledName INTEGER");
            }
            cols.addAll(List.of("launchType INTEGER", "cacheConfig INTEGER", "registersPerThread INTEGER",
                    "gridX INTEGER", "gridY INTEGER", "gridZ INTEGER", "blockX INTEGER", "blockY INTEGER", "blockZ INTEGER",
                    "staticSharedMemory INTEGER", "dynamicSharedMemory INTEGER", "localMemoryPerThread INTEGER",
                    "localMemoryTotal INTEGER", "gridId INTEGER", "sharedMemoryExecuted INTEGER"));
            if (full) {
                cols.add("graphNodeId UINT64");
                cols.add("sharedMemoryLimitConfig INTEGER");
                cols.add("graphId INTEGER");
            }
            fill(e.table("CUPTI_ACTIVITY_KIND_KERNEL", cols.toArray(new String[0])), kernels);
        }
        if (!memcpys.isEmpty()) {
            List<String> cols = new ArrayList<>(List.of(gpuCommon));
            cols.addAll(List.of("bytes INTEGER", "copyKind INTEGER", "deprecatedSrcId INTEGER", "srcKind INTEGER",
                    "dstKind INTEGER", "srcDeviceId INTEGER", "srcContextId INTEGER", "dstDeviceId INTEGER",
                    "dstContextId INTEGER", "migrationCause INTEGER"));
            if (full) {
                cols.add("graphNodeId UINT64");
            }
            fill(e.table("CUPTI_ACTIVITY_KIND_MEMCPY", cols.toArray(new String[0])), memcpys);
        }
        if (!memsets.isEmpty()) {
            List<String> cols = new ArrayList<>(List.of(gpuCommon));
            cols.addAll(List.of("value INTEGER", "bytes INTEGER"));
            if (full) {
                cols.add("graphNodeId UINT64");
                cols.add("memKind INTEGER");
            }
            fill(e.table("CUPTI_ACTIVITY_KIND_MEMSET", cols.toArray(new String[0])), memsets);
        }
        if (!syncs.isEmpty()) {
            List<String> cols = new ArrayList<>(List.of(gpuCommon));
            cols.addAll(List.of("syncType INTEGER", "eventId INTEGER"));
            fill(e.table("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", cols.toArray(new String[0])), syncs);
        }
        if (!graphs.isEmpty()) {
            List<String> cols = new ArrayList<>(List.of(gpuCommon));
            cols.addAll(List.of("graphId INTEGER", "graphExecId INTEGER"));
            fill(e.table("CUPTI_ACTIVITY_KIND_GRAPH_TRACE", cols.toArray(new String[0])), graphs);
        }
        if (!runtime.isEmpty()) {
            fill(e.table("CUPTI_ACTIVITY_KIND_RUNTIME", "start INTEGER", "end INTEGER", "eventClass INTEGER",
                    "globalTid INTEGER", "correlationId UINT32", "nameId INTEGER", "returnValue INTEGER",
                    "callchainId INTEGER"), runtime);
        }
        if (!nvtx.isEmpty()) {
            fill(e.table("NVTX_EVENTS", "start INTEGER", "end INTEGER", "eventType INTEGER", "rangeId INTEGER",
                    "category INTEGER", "color INTEGER", "text TEXT", "globalTid INTEGER", "endGlobalTid INTEGER",
                    "textId INTEGER", "domainId INTEGER", "uint64Value UINT64", "int64Value INTEGER",
                    "doubleValue REAL", "uint32Value UINT32", "int32Value INTEGER", "floatValue REAL",
                    "jsonTextId INTEGER", "jsonText TEXT", "binaryData TEXT"), nvtx);
        }
        if (full && !threads.isEmpty()) {
            NsysExport.Table t = e.table("ThreadNames", "nameId INTEGER", "priority INTEGER", "globalTid INTEGER");
            for (Map.Entry<Long, String> th : threads.entrySet()) {
                t.row(string(th.getValue()), 0, globalTid(th.getKey()));
            }
        }
        // StringIds last: strings registered by the tables above are all in it.
        NsysExport.Table s = e.table("StringIds", "id INTEGER", "value TEXT");
        for (int i = 0; i < strings.size(); i++) {
            s.row((long) i, strings.get(i));
        }
        return e;
    }

    private void fill(NsysExport.Table t, List<Map<String, Object>> rows) {
        long shift = tsNormalized ? 0 : sessionStart;
        for (Map<String, Object> r : rows) {
            Map<String, Object> copy = new LinkedHashMap<>(r);
            for (String k : new String[] {"start", "end"}) {
                if (copy.get(k) instanceof Long v) {
                    copy.put(k, v - shift);
                }
            }
            t.row(copy);
        }
    }
}
