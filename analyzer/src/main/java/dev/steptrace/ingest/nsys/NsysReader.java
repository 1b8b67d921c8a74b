package dev.steptrace.ingest.nsys;

import static dev.steptrace.ingest.nsys.NsysSource.Col.num;
import static dev.steptrace.ingest.nsys.NsysSource.Col.text;
import static dev.steptrace.ingest.nsys.Rows.NULL;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.steptrace.ingest.FileSummary;
import dev.steptrace.ingest.RowSink;
import dev.steptrace.ingest.TimeLimits;
import dev.steptrace.store.CpuOpWriter;
import dev.steptrace.store.GpuOpWriter;
import dev.steptrace.store.LaunchWriter;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Maps one Nsight Systems export (any container, through {@link NsysSource}) onto the store's tables,
 * inside the caller's open transaction, streaming every event table in batches. docs/formats.md
 * documents the mapping; in short:
 *
 * <ul>
 *   <li>{@code CUPTI_ACTIVITY_KIND_KERNEL} → {@code gpu_ops} kernels (name: {@code demangledName}, else
 *       {@code shortName}, else {@code mangledName}); {@code _MEMCPY}, {@code _MEMSET},
 *       {@code _SYNCHRONIZATION} → memcpy, memset, sync rows named as Kineto names them
 *       ({@link CuptiNames}); {@code _GRAPH_TRACE} (whole-graph replays of
 *       {@code --cuda-graph-trace=graph}) → one kernel row per replay named {@code CUDA graph N}, with
 *       {@code graph_id} set and {@code graph_node_id} NULL;</li>
 *   <li>{@code CUPTI_ACTIVITY_KIND_RUNTIME} → {@code launches} ({@code eventClass} 1 is the driver API),
 *       names without nsys's {@code _vNNNN} suffix;</li>
 *   <li>{@code NVTX_EVENTS} push/pop and start/end ranges → {@code cpu_ops} user annotations with
 *       {@code nvtx} and {@code nvtx_domain} set; marks are dropped;</li>
 *   <li>{@code PROCESSES}, {@code ThreadNames} → {@code tracks}; {@code TARGET_INFO_GPU} →
 *       {@code devices}; {@code MPI_RANKS} → the file's rank.</li>
 * </ul>
 *
 * Times are nanoseconds since the export's start time: {@code TARGET_INFO_SESSION_START_TIME.utcEpochNs}
 * is added (unless the export was made with {@code --ts-normalize}, whose times already are epoch
 * nanoseconds), and rows that start before it (negative times) are dropped.
 *
 * <p>Correlation ids are per process in CUPTI. When the export holds CUDA work of one process they are
 * stored as they are; otherwise (or when the export does not say) each becomes
 * {@code pid << 32 | correlationId}, which keeps a kernel and its launch equal and different processes
 * apart.
 */
public final class NsysReader {
    static final int BATCH_ROWS = 1 << 17;
    private static final int PROGRESS_EVERY = 8192;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Capture settings worth keeping in files.metadata (the rest are environment variables and paths). */
    private static final Set<String> SYSTEM_ENV_KEPT =
            Set.of("Hostname", "NvDriverVersion", "CudaDriverVersion", "OsDescription", "CpuDescription", "CpuCores");

    static final int NVTX_MARK = 34;
    static final int NVTX_PUSH_POP = 59;
    static final int NVTX_START_END = 60;
    static final int NVTXT_MARK = 65;
    static final int NVTXT_PUSH_POP = 70;
    static final int NVTXT_START_END = 71;
    static final int NVTX_DOMAIN_CREATE = 75;
    static final int EVENT_CLASS_DRIVER = 1;

    private final NsysSource src;
    private final RowSink sink;
    private final int fileId;
    private final AtomicLong eventsCounter;
    private final FileSummary out = new FileSummary();
    private final NsysNames names = new NsysNames();

    private long base;
    private boolean perProcessCorrelation;
    private long firstTs = Long.MAX_VALUE;
    private long lastTs = Long.MIN_VALUE;
    private int sinceProgress;
    /** Processes with CUDA contexts (TARGET_INFO_CUDA_CONTEXT_INFO), or the kernels' when it is absent. */
    private final Set<Long> cudaPids = new TreeSet<>();
    /** Devices of the kept GPU rows (ids below 1024). */
    private final java.util.BitSet devicesUsed = new java.util.BitSet();
    private long lastCudaPid = NULL;
    /** Processes that appear in any kept event: the ones whose tracks are written. */
    private final Set<Long> eventPids = new HashSet<>();
    /** The last globalTid whose process went into {@link #eventPids}: consecutive rows mostly share one. */
    private long lastEventTid = NULL;
    /** NVTX domain names by {@code pid << 32 | domainId}. */
    private final Map<Long, String> domains = new HashMap<>();
    private final List<long[]> threadNames = new ArrayList<>();
    private final List<long[]> mpiRanks = new ArrayList<>();
    private final long[] dropped = new long[1];
    /** @param sink the file's rows; batches are inserted on its inserter while the next is read */
    public NsysReader(NsysSource src, RowSink sink, AtomicLong eventsCounter) {
        this.src = src;
        this.sink = sink;
        this.fileId = sink.fileId();
        this.eventsCounter = eventsCounter;
    }

    /** pid of a serialized {@code globalTid}/{@code globalPid}: {@code <HW:8><VM:8><PID:24><TID:24>}. */
    public static long pid(long globalId) {
        return (globalId >>> 24) & 0xFFFFFF;
    }

    public static long tid(long globalId) {
        return globalId & 0xFFFFFF;
    }

    /** Reads the export into the sink, table by table; {@code bytes} is its size on disk, for files.json_bytes. */
    public FileSummary read(long bytes) throws IOException, SQLException {
        out.bytesRead = bytes;
        ObjectNode meta = JSON.createObjectNode();
        timeBase(meta);
        cudaProcesses();
        domains();
        // One table at a time: only its batches are held.
        GpuOpWriter gpu = sink.gpuOps();
        kernels(gpu);
        memcpys(gpu);
        memsets(gpu);
        syncs(gpu);
        graphReplays(gpu);
        sink.done("gpu_ops");
        runtime(sink.launches());
        sink.done("launches");
        nvtx(sink.cpuOps());
        sink.done("cpu_ops");
        eventsCounter.addAndGet(sinceProgress);
        sinceProgress = 0;
        mpiRanks();
        devices();
        Map<Long, String> threadNameText = writeNames();
        writeTracks(threadNameText);
        sink.finish();
        if (cudaPids.size() > 1) {
            out.anomaly("cuda_processes", cudaPids.size());
        }
        if (devicesUsed.cardinality() > 1) {
            out.anomaly("gpu_devices", devicesUsed.cardinality());
        }
        out.dropped = dropped[0];
        out.baseTimeNs = base;
        out.firstTsNs = firstTs == Long.MAX_VALUE ? null : firstTs;
        out.lastTsNs = lastTs == Long.MIN_VALUE ? null : lastTs;
        out.metadata = meta.isEmpty() ? null : meta.toString();
        return out;
    }

    // ---- metadata, clock, processes ------------------------------------------------------------

    private void timeBase(ObjectNode meta) throws IOException {
        Map<String, String> export = keyValues("META_DATA_EXPORT", meta, "nsys_export", Set.of());
        keyValues("META_DATA_CAPTURE", meta, "nsys_capture", null);
        ObjectNode system = JSON.createObjectNode();
        try (Rows r = src.scan("TARGET_INFO_SYSTEM_ENV", List.of(text("name"), text("value")), null)) {
            while (r.next()) {
                String name = r.getString(0);
                if (name != null && SYSTEM_ENV_KEPT.contains(name)) {
                    system.put(name, r.getString(1));
                    if (name.equals("Hostname")) {
                        out.hostName = r.getString(1);
                    }
                }
            }
        }
        if (!system.isEmpty()) {
            meta.set("nsys_system", system);
        }
        long start = NULL;
        try (Rows r = src.scan("TARGET_INFO_SESSION_START_TIME", List.of(num("utcEpochNs")), null)) {
            if (r.next()) {
                start = r.getLong(0);
            }
        }
        boolean normalized = "true".equalsIgnoreCase(export.get("EXPORT_PARAM_TIME_NORMALIZE"));
        if (normalized) {
            // --ts-normalize: times are UTC epoch nanoseconds already.
            base = 0;
        } else if (start != NULL && TimeLimits.baseFits(start)) {
            base = start;
        } else if (start != NULL) {
            base = 0;
            out.anomaly("base_time_out_of_range_ignored", 1);
        } else {
            base = 0;
            out.anomaly("no_export_start_time", 1);
        }
        if (start != NULL) {
            meta.put("export_start_utc_ns", start);
        }
    }

    /**
     * name/value tables as a JSON object (repeated names become arrays). {@code drop} lists names left
     * out; null drops the capture's environment variables and per-process launch details.
     */
    private Map<String, String> keyValues(String table, ObjectNode meta, String key, Set<String> drop)
            throws IOException {
        Map<String, String> first = new LinkedHashMap<>();
        ObjectNode node = JSON.createObjectNode();
        try (Rows r = src.scan(table, List.of(text("name"), text("value")), null)) {
            while (r.next()) {
                String name = r.getString(0);
                String value = r.getString(1);
                if (name == null) {
                    continue;
                }
                if (drop == null ? name.contains("ENVIRONMENT_VARIABLE") : drop.contains(name)) {
                    continue;
                }
                if (value != null && value.length() > 4096) {
                    value = "(" + value.length() + " characters, left out)";
                }
                first.putIfAbsent(name, value);
                if (node.has(name)) {
                    if (!node.get(name).isArray()) {
                        ArrayNode a = JSON.createArrayNode();
                        a.add(node.get(name));
                        node.set(name, a);
                    }
                    ((ArrayNode) node.get(name)).add(value);
                } else {
                    node.put(name, value);
                }
            }
        }
        if (!node.isEmpty()) {
            meta.set(key, node);
        }
        return first;
    }

    private void cudaProcesses() throws IOException {
        boolean known = src.has("TARGET_INFO_CUDA_CONTEXT_INFO");
        try (Rows r = src.scan("TARGET_INFO_CUDA_CONTEXT_INFO", List.of(num("processId")), null)) {
            while (r.next()) {
                if (r.getLong(0) != NULL) {
                    cudaPids.add(r.getLong(0));
                }
            }
        }
        perProcessCorrelation = !known || cudaPids.size() > 1;
    }

    /** NVTX domain names: the eventType-75 row of each (process, domainId). */
    private void domains() throws IOException {
        List<long[]> pending = new ArrayList<>();
        Map<Long, List<Long>> byTextId = new HashMap<>();
        try (Rows r = src.scan("NVTX_EVENTS", List.of(num("globalTid"), num("domainId"), text("text"), num("textId")),
                new NsysSource.Filter("eventType", new long[] {NVTX_DOMAIN_CREATE}))) {
            while (r.next()) {
                long key = (pid(r.getLong(0)) << 32) | (r.getLong(1) & 0xFFFFFFFFL);
                String name = r.getString(2);
                if (name != null) {
                    domains.put(key, name);
                } else if (r.getLong(3) != NULL) {
                    byTextId.computeIfAbsent(r.getLong(3), k -> new ArrayList<>()).add(key);
                    pending.add(new long[] {key});
                }
            }
        }
        if (!byTextId.isEmpty()) {
            long[] ids = byTextId.keySet().stream().mapToLong(Long::longValue).toArray();
            try (Rows r = src.scan("StringIds", List.of(num("id"), text("value")),
                    new NsysSource.Filter("id", ids))) {
                while (r.next()) {
                    for (long key : byTextId.getOrDefault(r.getLong(0), List.of())) {
                        domains.put(key, r.getString(1));
                    }
                }
            }
        }
    }

    // ---- GPU activities -----------------------------------------------------------------------

    /**
     * The kernel table's columns as the reader asks for them. Per row it reads {@link #KERNEL_HOT}:
     * times, then small integers packed in threes and fives (device|stream, correlation|name,
     * gridY..blockZ), which a SQLite export computes in its query, so a row costs 8 values instead of
     * 14; the plain columns after them are read only when a packed value is NULL (a part missing or
     * out of range) or a name must fall back to {@code shortName}/{@code mangledName}.
     */
    public static final List<NsysSource.Col> KERNEL_COLUMNS = List.of(
            num("start"), num("end"),
            NsysSource.Col.packed("device_stream", List.of("deviceId", "streamId"), 16, 47),
            NsysSource.Col.packed("correlation_name", List.of("correlationId", "demangledName"), 32, 31),
            num("gridX"),
            NsysSource.Col.packed("grid_yz_block", List.of("gridY", "gridZ", "blockX", "blockY", "blockZ"), 16, 16, 11, 11, 9),
            num("graphNodeId"), num("graphId"),
            num("deviceId"), num("streamId"), num("correlationId"), num("globalPid"), num("demangledName"),
            num("shortName"), num("mangledName"), num("gridY"), num("gridZ"), num("blockX"), num("blockY"),
            num("blockZ"));
    /** The columns of {@link #KERNEL_COLUMNS} read for every kernel row (the benchmark's ceiling reads these). */
    public static final int[] KERNEL_HOT = {0, 1, 2, 3, 4, 5, 6, 7};

    private void kernels(GpuOpWriter gpu) throws IOException, SQLException {
        boolean readPid = perProcessCorrelation;
        boolean hasGraphId = src.columns("CUPTI_ACTIVITY_KIND_KERNEL").contains("graphId");
        boolean hasGraphNodeId = src.columns("CUPTI_ACTIVITY_KIND_KERNEL").contains("graphNodeId");
        int unknownName = -1;
        try (Rows r = src.scan("CUPTI_ACTIVITY_KIND_KERNEL", KERNEL_COLUMNS, null)) {
            while (r.next()) {
                long start = r.getLong(0);
                if (dropTimes(start, r.getLong(1))) {
                    continue;
                }
                long pid = readPid ? pidOrZero(r.getLong(11)) : 0;
                long device;
                long stream;
                long v = r.getLong(2);
                if (v != NULL) {
                    device = v & 0xFFFF;
                    stream = v >>> 16;
                } else {
                    device = r.getLong(8);
                    stream = r.getLong(9);
                }
                long correlation;
                long name;
                v = r.getLong(3);
                if (v != NULL) {
                    correlation = v & 0xFFFFFFFFL;
                    name = v >>> 32;
                } else {
                    correlation = r.getLong(10);
                    name = r.getLong(12);
                    if (name == NULL) {
                        name = r.getLong(13);
                    }
                    if (name == NULL) {
                        name = r.getLong(14);
                    }
                }
                int nameId;
                if (name != NULL) {
                    nameId = names.ref(name, false);
                } else {
                    if (unknownName < 0) {
                        unknownName = names.literal("[unnamed kernel]");
                    }
                    nameId = unknownName;
                }
                gpuCommon(gpu, GpuOpWriter.Kind.KERNEL, nameId, start, r.getLong(1), device, stream, correlation, pid);
                v = r.getLong(4);
                if (v != NULL) {
                    gpu.grid(0, (int) v);
                }
                v = r.getLong(5);
                if (v != NULL) {
                    gpu.grid(1, (int) (v & 0xFFFF));
                    gpu.grid(2, (int) ((v >>> 16) & 0xFFFF));
                    gpu.block(0, (int) ((v >>> 32) & 0x7FF));
                    gpu.block(1, (int) ((v >>> 43) & 0x7FF));
                    gpu.block(2, (int) ((v >>> 54) & 0x1FF));
                } else {
                    for (int axis = 1; axis < 3; axis++) {
                        if ((v = r.getLong(14 + axis)) != NULL) {
                            gpu.grid(axis, (int) v);
                        }
                    }
                    for (int axis = 0; axis < 3; axis++) {
                        if ((v = r.getLong(17 + axis)) != NULL) {
                            gpu.block(axis, (int) v);
                        }
                    }
                }
                if (hasGraphNodeId && (v = r.getLong(6)) != NULL) {
                    gpu.graphNodeId(v);
                }
                if (hasGraphId && (v = r.getLong(7)) != NULL) {
                    gpu.graphId(v);
                }
                gpu.end();
                out.kernels++;
                if (readPid) {
                    noteCudaPid(pid);
                }
                progress();
            }
        }
    }

    /** The columns every GPU activity table starts with, in this order. */
    private static final List<NsysSource.Col> GPU_COMMON = List.of(num("start"), num("end"), num("deviceId"),
            num("streamId"), num("correlationId"), num("globalPid"));

    /**
     * One row of a GPU activity table past its common columns: its name id ({@link #name}), and its own
     * columns ({@link #columns}, once the row is begun).
     */
    private interface GpuRow {
        int name(Rows r) throws IOException;

        default void columns(Rows r, GpuOpWriter gpu) throws IOException {}
    }

    /**
     * Streams a GPU activity table ({@link #GPU_COMMON} then {@code extra} columns, numbered from 6) into
     * gpu_ops rows of {@code kind}; returns the rows kept.
     */
    private long gpuTable(GpuOpWriter gpu, String table, List<NsysSource.Col> extra, GpuOpWriter.Kind kind, GpuRow row)
            throws IOException, SQLException {
        List<NsysSource.Col> cols = new ArrayList<>(GPU_COMMON);
        cols.addAll(extra);
        long kept = 0;
        try (Rows r = src.scan(table, cols, null)) {
            while (r.next()) {
                long start = r.getLong(0);
                if (dropTimes(start, r.getLong(1))) {
                    continue;
                }
                long pid = perProcessCorrelation ? pidOrZero(r.getLong(5)) : 0;
                int nameId = row.name(r);
                gpuCommon(gpu, kind, nameId, start, r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4), pid);
                row.columns(r, gpu);
                gpu.end();
                kept++;
                progress();
            }
        }
        return kept;
    }

    private void memcpys(GpuOpWriter gpu) throws IOException, SQLException {
        Map<Long, Integer> nameIds = new HashMap<>();
        out.memcpys = gpuTable(gpu, "CUPTI_ACTIVITY_KIND_MEMCPY",
                List.of(num("bytes"), num("copyKind"), num("srcKind"), num("dstKind"), num("graphNodeId")),
                GpuOpWriter.Kind.MEMCPY, new GpuRow() {
                    @Override
                    public int name(Rows r) throws IOException {
                        long copy = r.getLong(7);
                        long srcKind = r.getLong(8);
                        long dstKind = r.getLong(9);
                        long key = ((copy & 0xFFFF) << 32) | ((srcKind & 0xFFFF) << 16) | (dstKind & 0xFFFF);
                        return nameIds.computeIfAbsent(key, k -> names.literal(CuptiNames.memcpy(copy, srcKind, dstKind)));
                    }

                    @Override
                    public void columns(Rows r, GpuOpWriter gpu) throws IOException {
                        bytesAndNode(r, gpu, 6, 10);
                    }
                });
    }

    private void memsets(GpuOpWriter gpu) throws IOException, SQLException {
        Map<Long, Integer> nameIds = new HashMap<>();
        out.memsets = gpuTable(gpu, "CUPTI_ACTIVITY_KIND_MEMSET", List.of(num("bytes"), num("memKind"), num("graphNodeId")),
                GpuOpWriter.Kind.MEMSET, new GpuRow() {
                    @Override
                    public int name(Rows r) throws IOException {
                        long kind = r.getLong(7);
                        return nameIds.computeIfAbsent(kind, k -> names.literal(CuptiNames.memset(kind)));
                    }

                    @Override
                    public void columns(Rows r, GpuOpWriter gpu) throws IOException {
                        bytesAndNode(r, gpu, 6, 8);
                    }
                });
    }

    /** A copy's or a set's bytes and graph node, from columns {@code bytes} and {@code node} of the row. */
    private static void bytesAndNode(Rows r, GpuOpWriter gpu, int bytes, int node) throws IOException {
        long v = r.getLong(bytes);
        if (v != NULL) {
            gpu.bytes(v);
        }
        v = r.getLong(node);
        if (v != NULL) {
            gpu.graphNodeId(v);
        }
    }

    private void syncs(GpuOpWriter gpu) throws IOException, SQLException {
        Map<Long, Integer> nameIds = new HashMap<>();
        out.syncs = gpuTable(gpu, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", List.of(num("syncType")), GpuOpWriter.Kind.SYNC,
                r -> {
                    long type = r.getLong(6);
                    return nameIds.computeIfAbsent(type, k -> names.literal(CuptiNames.sync(type)));
                });
    }

    /**
     * {@code --cuda-graph-trace=graph} (nsys's default): one row per graph replay, no per-kernel
     * records. Kept as one kernel row per replay (graph_id set, graph_node_id NULL) so that the GPU
     * time is there; the capture-quality check reports that its categories cannot be split.
     */
    private void graphReplays(GpuOpWriter gpu) throws IOException, SQLException {
        Map<Long, Integer> nameIds = new HashMap<>();
        long replays = gpuTable(gpu, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", List.of(num("graphId")), GpuOpWriter.Kind.KERNEL,
                new GpuRow() {
                    @Override
                    public int name(Rows r) throws IOException {
                        long graph = r.getLong(6);
                        return nameIds.computeIfAbsent(graph, k -> names.literal(graph == NULL ? "CUDA graph" : "CUDA graph " + graph));
                    }

                    @Override
                    public void columns(Rows r, GpuOpWriter gpu) throws IOException {
                        // graph_node_id stays NULL: that is what marks a whole-graph row.
                        long graph = r.getLong(6);
                        gpu.graphId(graph == NULL ? -1 : graph);
                    }
                });
        out.kernels += replays;
        out.anomaly("graph_replays_without_kernel_records", replays);
    }

    private void gpuCommon(GpuOpWriter gpu, GpuOpWriter.Kind kind, int nameId, long start, long end, long device,
                           long stream, long correlation, long pid) {
        long ts = start + base;
        long dur = duration(start, end);
        gpu.start(kind, nameId, ts, dur);
        if (device != NULL) {
            gpu.device((int) device);
            if (device >= 0 && device < 1024) {
                devicesUsed.set((int) device);
            }
        }
        if (stream != NULL) {
            gpu.stream(stream);
        }
        if (correlation != NULL) {
            gpu.correlation(correlation(pid, correlation));
        }
        span(ts, dur);
    }

    // ---- CPU side -----------------------------------------------------------------------------

    private void runtime(LaunchWriter launch) throws IOException, SQLException {
        List<NsysSource.Col> cols = List.of(num("start"), num("end"), num("eventClass"), num("globalTid"),
                num("correlationId"), num("nameId"));
        try (Rows r = src.scan("CUPTI_ACTIVITY_KIND_RUNTIME", cols, null)) {
            while (r.next()) {
                long start = r.getLong(0);
                if (dropTimes(start, r.getLong(1))) {
                    continue;
                }
                long ts = start + base;
                long dur = duration(start, r.getLong(1));
                long globalTid = r.getLong(3);
                long nameRef = r.getLong(5);
                launch.start(r.getLong(2) == EVENT_CLASS_DRIVER ? LaunchWriter.Kind.DRIVER : LaunchWriter.Kind.RUNTIME,
                        nameRef == NULL ? names.literal("[unnamed call]") : names.ref(nameRef, true), ts, dur);
                long pid = 0;
                if (globalTid != NULL) {
                    pid = thread(globalTid);
                    launch.pid(pid);
                    launch.tid(tid(globalTid));
                }
                long corr = r.getLong(4);
                if (corr != NULL) {
                    launch.correlation(correlation(pid, corr));
                }
                launch.end();
                span(ts, dur);
                out.runtime++;
                progress();
            }
        }
    }

    /** NVTX push/pop and start/end ranges as user annotations; marks are dropped. */
    private void nvtx(CpuOpWriter cpu) throws IOException, SQLException {
        List<NsysSource.Col> cols = List.of(num("start"), num("end"), num("eventType"), num("globalTid"),
                text("text"), num("textId"), num("domainId"));
        long unterminated = 0;
        try (Rows r = src.scan("NVTX_EVENTS", cols, new NsysSource.Filter("eventType",
                new long[] {NVTX_PUSH_POP, NVTX_START_END, NVTXT_PUSH_POP, NVTXT_START_END, NVTX_MARK, NVTXT_MARK}))) {
            while (r.next()) {
                long type = r.getLong(2);
                long start = r.getLong(0);
                long end = r.getLong(1);
                if (type == NVTX_MARK || type == NVTXT_MARK) {
                    dropped[0]++;
                    continue;
                }
                if (end == NULL && start != NULL && start >= 0) {
                    // A range still open when the capture ended.
                    unterminated++;
                    dropped[0]++;
                    continue;
                }
                if (dropTimes(start, end)) {
                    continue;
                }
                long ts = start + base;
                long dur = duration(start, end);
                long globalTid = r.getLong(3);
                String text = r.getString(4);
                int nameId;
                if (text != null) {
                    nameId = names.literal(text);
                } else if (r.getLong(5) != NULL) {
                    nameId = names.ref(r.getLong(5), false);
                } else {
                    nameId = names.literal("");
                }
                cpu.start(CpuOpWriter.Kind.USER_ANNOTATION, nameId, ts, dur);
                long pid = 0;
                if (globalTid != NULL) {
                    pid = thread(globalTid);
                    cpu.pid(pid);
                    cpu.tid(tid(globalTid));
                }
                cpu.nvtx(type == NVTX_PUSH_POP || type == NVTXT_PUSH_POP ? CpuOpWriter.Nvtx.PUSH_POP : CpuOpWriter.Nvtx.START_END);
                long domainId = r.getLong(6);
                if (domainId != NULL && domainId != 0) {
                    String domain = domains.get((pid << 32) | (domainId & 0xFFFFFFFFL));
                    cpu.nvtxDomain(domain != null ? domain : "domain " + domainId);
                }
                cpu.end();
                span(ts, dur);
                out.annotations++;
                progress();
            }
        }
        out.anomaly("nvtx_unterminated_ranges", unterminated);
    }

    // ---- rank, devices, names, tracks ---------------------------------------------------------

    /**
     * The rank of the process that did the GPU work, from {@code MPI_RANKS}: the rank of a CUDA
     * process when the table maps one, else the table's only rank.
     */
    private void mpiRanks() throws IOException {
        try (Rows r = src.scan("MPI_RANKS", List.of(num("globalTid"), num("rank")), null)) {
            while (r.next()) {
                if (r.getLong(1) != NULL) {
                    mpiRanks.add(new long[] {r.getLong(0) == NULL ? -1 : pid(r.getLong(0)), r.getLong(1)});
                }
            }
        }
        if (mpiRanks.isEmpty()) {
            return;
        }
        Set<Long> all = new TreeSet<>();
        Set<Long> ofCuda = new TreeSet<>();
        for (long[] m : mpiRanks) {
            all.add(m[1]);
            if (cudaPids.contains(m[0])) {
                ofCuda.add(m[1]);
            }
        }
        Set<Long> candidates = !ofCuda.isEmpty() ? ofCuda : all;
        out.rank = (int) (long) candidates.iterator().next();
        out.rankSource = "mpi_ranks";
        if (candidates.size() > 1) {
            out.anomaly("mpi_ranks_in_file", candidates.size());
        }
        if (all.size() > 1) {
            out.worldSize = all.size();
        }
    }

    private void devices() throws IOException {
        List<NsysSource.Col> cols = List.of(num("id"), num("cuDevice"), text("name"), num("totalMemory"),
                num("computeMajor"), num("computeMinor"), num("smCount"), text("busLocation"), text("uuid"),
                text("chipName"), num("clockRate"), num("memoryBandwidth"), num("l2CacheSize"));
        try (Rows r = src.scan("TARGET_INFO_GPU", cols, null)) {
            while (r.next()) {
                long cu = r.getLong(1);
                long id = cu != NULL ? cu : r.getLong(0);
                ObjectNode props = JSON.createObjectNode();
                for (int i = 0; i < cols.size(); i++) {
                    if (cols.get(i).text()) {
                        if (r.getString(i) != null) {
                            props.put(cols.get(i).name(), r.getString(i));
                        }
                    } else if (r.getLong(i) != NULL) {
                        props.put(cols.get(i).name(), r.getLong(i));
                    }
                }
                sink.device(new RowSink.Device(id == NULL ? 0 : (int) id, r.getString(2), orNull(r.getLong(3)),
                        intOrNull(r.getLong(4)), intOrNull(r.getLong(5)), intOrNull(r.getLong(6)), props.toString()));
            }
        }
    }

    /**
     * Writes the names rows: literal names, then one pass over {@code StringIds} that keeps the
     * referenced strings. Returns the text of the thread-name strings, for the tracks.
     */
    private Map<Long, String> writeNames() throws IOException, SQLException {
        Set<Long> threadNameIds = new HashSet<>();
        try (Rows r = src.scan("ThreadNames", List.of(num("nameId"), num("globalTid")), null)) {
            while (r.next()) {
                long g = r.getLong(1);
                if (g != NULL && r.getLong(0) != NULL && eventPids.contains(pid(g))) {
                    threadNames.add(new long[] {pid(g), tid(g), r.getLong(0)});
                    threadNameIds.add(r.getLong(0));
                }
            }
        }
        Map<Long, String> threadNameText = new HashMap<>();
        java.util.BitSet written = new java.util.BitSet();
        for (Map.Entry<String, Integer> e : names.literals().entrySet()) {
            sink.name(e.getValue(), e.getKey());
        }
        if (names.references() > 0 || !threadNameIds.isEmpty()) {
            try (Rows r = src.scan("StringIds", List.of(num("id"), text("value")), null)) {
                while (r.next()) {
                    long id = r.getLong(0);
                    if (id == NULL) {
                        continue;
                    }
                    int asIs = names.existing(id, false);
                    int stripped = names.existing(id, true);
                    boolean threadName = threadNameIds.contains(id);
                    if (asIs < 0 && stripped < 0 && !threadName) {
                        continue;
                    }
                    String value = r.getString(1);
                    if (value == null) {
                        value = "";
                    }
                    if (threadName) {
                        threadNameText.put(id, value);
                    }
                    if (asIs >= 0 && !written.get(asIs)) {
                        sink.name(asIs, value);
                        written.set(asIs);
                    }
                    if (stripped >= 0 && !written.get(stripped)) {
                        sink.name(stripped, NsysNames.stripVersion(value));
                        written.set(stripped);
                    }
                }
            }
        }
        // References to strings that StringIds lacks: named after the id, and counted.
        long[] missing = new long[1];
        List<long[]> absent = new ArrayList<>();
        names.forEachReference((stringId, strip, id) -> {
            if (!written.get(id)) {
                absent.add(new long[] {stringId, id});
            }
        });
        for (long[] a : absent) {
            sink.name((int) a[1], "[string " + a[0] + "]");
            missing[0]++;
        }
        out.anomaly("missing_string_ids", missing[0]);
        return threadNameText;
    }

    private void writeTracks(Map<Long, String> threadNameText) throws IOException {
        Set<Long> pids = new TreeSet<>(eventPids);
        pids.addAll(cudaPids);
        Set<Long> written = new HashSet<>();
        try (Rows r = src.scan("PROCESSES", List.of(num("globalPid"), num("pid"), text("name")), null)) {
            while (r.next()) {
                long pid = r.getLong(1) != NULL ? r.getLong(1) : r.getLong(0) != NULL ? pid(r.getLong(0)) : NULL;
                if (pid == NULL || !pids.contains(pid) || !written.add(pid)) {
                    continue;
                }
                sink.track(pid, null, r.getString(2), "CPU", null);
            }
        }
        for (long[] t : threadNames) {
            sink.track(t[0], t[1], threadNameText.get(t[2]), null, null);
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    private long correlation(long pid, long correlationId) {
        return perProcessCorrelation ? (pid << 32) | (correlationId & 0xFFFFFFFFL) : correlationId;
    }

    /** The pid of a {@code globalTid}, noting the process as one this file has events of. */
    private long thread(long globalTid) {
        long pid = pid(globalTid);
        if (globalTid != lastEventTid) {
            eventPids.add(pid);
            lastEventTid = globalTid;
        }
        return pid;
    }

    private void noteCudaPid(long pid) {
        if (pid == lastCudaPid) {
            return;
        }
        lastCudaPid = pid;
        if (cudaPids.size() < 1024) {
            cudaPids.add(pid);
        }
        eventPids.add(pid);
    }

    private static long pidOrZero(long globalPid) {
        return globalPid == NULL ? 0 : pid(globalPid);
    }

    /**
     * A row that starts before the export's start time (activity before {@code cudaProfilerStart}), or whose times
     * do not fit the store's range ({@link TimeLimits}): dropped and counted, and true.
     */
    private boolean dropTimes(long start, long end) {
        if (start == NULL || start < 0) {
            dropped[0]++;
            return true;
        }
        long dur = end == NULL || end < start ? 0 : end - start;
        if (!TimeLimits.fits(base, start, dur)) {
            dropped[0]++;
            out.anomaly("events_with_times_out_of_range_dropped", 1);
            return true;
        }
        return false;
    }

    private long duration(long start, long end) {
        if (end == NULL) {
            out.anomaly("missing_end_times", 1);
            return 0;
        }
        if (end < start) {
            out.anomaly("negative_durations", 1);
            return 0;
        }
        return end - start;
    }

    private void span(long ts, long dur) {
        if (ts < firstTs) {
            firstTs = ts;
        }
        if (ts + dur > lastTs) {
            lastTs = ts + dur;
        }
    }

    private void progress() {
        if (++sinceProgress == PROGRESS_EVERY) {
            eventsCounter.addAndGet(PROGRESS_EVERY);
            sinceProgress = 0;
        }
    }

    private static Long orNull(long v) {
        return v == NULL ? null : v;
    }

    private static Integer intOrNull(long v) {
        return v == NULL ? null : (int) v;
    }
}
