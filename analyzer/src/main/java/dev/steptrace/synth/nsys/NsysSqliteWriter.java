package dev.steptrace.synth.nsys;

import dev.steptrace.ingest.nsys.CuptiNames;
import dev.steptrace.synth.model.KernelSpec;
import dev.steptrace.synth.model.LaunchApi;
import dev.steptrace.synth.model.LaunchShape;
import dev.steptrace.synth.model.RankStep;
import dev.steptrace.synth.model.Workload;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Streams one rank's capture as an {@code nsys export --type sqlite} database in the documented
 * schema (docs/reference/trace-formats.md §B, the tables of nsys 2024.6 / schema 3.16 plus the
 * {@code graphId} kernel column of later versions): what Nsight Systems would have recorded of the
 * same workload with {@code --trace=cuda,nvtx --cuda-graph-trace=node}.
 *
 * <ul>
 *   <li>kernels and the memcpy → {@code CUPTI_ACTIVITY_KIND_KERNEL} / {@code _MEMCPY} (names through
 *       {@code StringIds}; graph replays keep the launch's correlation id and carry
 *       {@code graphNodeId}/{@code graphId});</li>
 *   <li>runtime and driver calls → {@code CUPTI_ACTIVITY_KIND_RUNTIME} with nsys's versioned names
 *       ({@code cudaLaunchKernel_v7000}; driver calls, {@code eventClass} 1, have none);</li>
 *   <li>host annotations (the vLLM step annotation, {@code nccl:all_reduce}) → NVTX push/pop ranges;
 *       each NCCL collective's {@code record_param_comms} → an {@code ncclAllReduce} range in the
 *       {@code NCCL} domain, as NCCL's own NVTX marks it; plain cpu ops and the GPU-side
 *       annotations have no nsys counterpart and are not written.</li>
 * </ul>
 * Times are nanoseconds from the export's start time ({@code TARGET_INFO_SESSION_START_TIME}), which is
 * 20 ms before the rank's profiler start. Rows go in through batched prepared statements in one
 * transaction; the file appears under its final name only when complete (the caller renames it).
 */
public final class NsysSqliteWriter implements Closeable {
    private static final int BATCH = 4096;
    private static final int STREAM = Workload.COMPUTE_STREAM;
    private static final long START_LEAD_NS = 20_000_000L;
    private static final int NVTX_PUSH_POP = 59;
    private static final int NVTX_DOMAIN_CREATE = 75;
    private static final long NCCL_DOMAIN = 1;
    private static final Pattern MEMCPY = Pattern.compile("^Memcpy (\\w+) \\((.+) -> (.+)\\)$");
    private static final Map<LaunchApi, String> NSYS_NAMES = Map.of(
            LaunchApi.CUDA_LAUNCH_KERNEL, "cudaLaunchKernel_v7000",
            LaunchApi.CU_LAUNCH_KERNEL, "cuLaunchKernel",
            LaunchApi.CU_LAUNCH_KERNEL_EX, "cuLaunchKernelEx",
            LaunchApi.CUDA_GRAPH_LAUNCH, "cudaGraphLaunch_v10000",
            LaunchApi.CUDA_MEMCPY_ASYNC, "cudaMemcpyAsync_v3020",
            LaunchApi.CUDA_STREAM_SYNCHRONIZE, "cudaStreamSynchronize_v3020");

    private final Connection c;
    private final Path file;
    private final int rank;
    private final int device;
    private final long pid;
    private final long globalPid;
    private final long globalTid;
    private final long exportStart;
    private final Map<String, Long> strings = new LinkedHashMap<>();
    /** Per kernel spec: {demangledName, shortName} string ids. */
    private final Map<KernelSpec, long[]> kernelNames = new IdentityHashMap<>();
    private final Map<KernelSpec, long[]> memcpyKinds = new IdentityHashMap<>();
    private final Map<LaunchApi, Long> apiNames = new HashMap<>();
    private final Batch kernels;
    private final Batch memcpys;
    private final Batch runtime;
    private final Batch nvtx;
    private long gridId;
    private long rows;

    /** An insert statement run every {@link #BATCH} rows. */
    private static final class Batch {
        final PreparedStatement ps;
        int pending;

        Batch(Connection c, String table, int columns) throws SQLException {
            this.ps = c.prepareStatement("INSERT INTO " + table + " VALUES ("
                    + String.join(", ", java.util.Collections.nCopies(columns, "?")) + ")");
        }

        void add() throws SQLException {
            ps.addBatch();
            if (++pending == BATCH) {
                flush();
            }
        }

        void flush() throws SQLException {
            if (pending > 0) {
                ps.executeBatch();
                pending = 0;
            }
        }
    }

    private final Workload workload;

    private NsysSqliteWriter(Path file, Workload workload, int rank, long profilerStart) throws IOException {
        this.file = file;
        this.rank = rank;
        this.workload = workload;
        this.device = workload.device(rank);
        this.pid = workload.pid(rank);
        this.globalPid = (1L << 48) | (pid << 24);
        this.globalTid = globalPid | pid;
        this.exportStart = Workload.BASE_TIME_NS + profilerStart - START_LEAD_NS;
        try {
            Files.deleteIfExists(file);
            c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA journal_mode = OFF");
                s.execute("PRAGMA synchronous = OFF");
                for (String ddl : SCHEMA) {
                    s.execute(ddl);
                }
            }
            c.setAutoCommit(false);
            kernels = new Batch(c, "CUPTI_ACTIVITY_KIND_KERNEL", 31);
            memcpys = new Batch(c, "CUPTI_ACTIVITY_KIND_MEMCPY", 20);
            runtime = new Batch(c, "CUPTI_ACTIVITY_KIND_RUNTIME", 8);
            nvtx = new Batch(c, "NVTX_EVENTS", 20);
        } catch (SQLException e) {
            throw new IOException("cannot create " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param profilerStart the rank's profiler start (its clock, relative to {@link Workload#BASE_TIME_NS})
     */
    public static NsysSqliteWriter open(Path file, Workload workload, int rank, long profilerStart) throws IOException {
        return new NsysSqliteWriter(file, workload, rank, profilerStart);
    }

    /** {@code rank<N>.sqlite}: what {@code nsys profile -o rank%q{RANK}} then {@code nsys export} write. */
    public static String fileName(int rank) {
        return "rank" + rank + ".sqlite";
    }

    /** Rows written so far (all tables). */
    public long rows() {
        return rows;
    }

    /** The export's start time, process and thread tables, and the NCCL domain. */
    public void header(String gpuName, int gpus, long totalMemory, int smCount) throws IOException {
        try {
            exec("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, ?, ?)", exportStart,
                    java.time.Instant.ofEpochSecond(0, exportStart).toString(), java.time.Instant.ofEpochSecond(0, exportStart).toString());
            String[][] meta = {
                {"EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"}, {"EXPORT_PRODUCT_VERSION", "2024.6.2.225"},
                {"EXPORT_SCHEMA_VERSION", "3.16.1"}, {"EXPORT_PARAM_TIME_NORMALIZE", "false"},
                {"EXPORT_PRODUCT_NOTE", "written by steptrace synth"}};
            for (String[] m : meta) {
                exec("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", m[0], m[1]);
            }
            exec("INSERT INTO META_DATA_CAPTURE VALUES (?, ?)", "PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE", "Node");
            for (int d = 0; d < gpus; d++) {
                exec("INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, totalMemory, smCount, uuid,"
                        + " cuDevice, computeMajor, computeMinor) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, 12, 0)",
                        1L << 48, d, gpuName, String.format("0000:%02x:00.0", 0x18 + d), totalMemory, smCount,
                        "GPU-synth-" + d, d);
            }
            exec("INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (?, 0, 1, ?, ?, 1, NULL, 0)", STREAM, pid, device);
            exec("INSERT INTO PROCESSES VALUES (?, ?, ?)", globalPid, pid, "python3");
            exec("INSERT INTO ThreadNames VALUES (?, 0, ?)", string("VLLM::Worker_TP" + rank), globalTid);
            exec("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES (?, NULL, ?, ?, ?, ?)",
                    1_000L, NVTX_DOMAIN_CREATE, "NCCL", globalTid, NCCL_DOMAIN);
        } catch (SQLException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** One step: its annotations (NVTX), calls and GPU activities. Times are this rank's clock. */
    public void step(RankStep s) throws IOException {
        try {
            for (int i = 0; i < s.hostCount(); i++) {
                RankStep.HostOp h = s.host(i);
                if (h.kind == RankStep.HostKind.USER_ANNOTATION) {
                    range(h.start, h.dur, h.name, 0);
                } else if (h.kind == RankStep.HostKind.RECORD_PARAM_COMMS) {
                    range(h.start, h.dur, "ncclAllReduce", NCCL_DOMAIN);
                }
            }
            for (int i = 0; i < s.callCount(); i++) {
                call(s.call(i));
            }
            for (int i = 0; i < s.gpuCount(); i++) {
                RankStep.GpuOp g = s.gpu(i);
                if (g.entry.spec().isMemcpy()) {
                    memcpy(g);
                } else {
                    kernel(g, s.graphId());
                }
            }
        } catch (SQLException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    private long rel(long t) {
        return Workload.BASE_TIME_NS + t - exportStart;
    }

    private void range(long start, long dur, String text, long domain) throws SQLException {
        PreparedStatement ps = nvtx.ps;
        ps.setLong(1, rel(start));
        ps.setLong(2, rel(start) + dur);
        ps.setInt(3, NVTX_PUSH_POP);
        for (int i = 4; i <= 20; i++) {
            ps.setNull(i, java.sql.Types.INTEGER);
        }
        ps.setString(7, text);
        ps.setLong(8, globalTid);
        ps.setLong(11, domain);
        nvtx.add();
        rows++;
    }

    private void call(RankStep.ApiCall a) throws SQLException {
        PreparedStatement ps = runtime.ps;
        ps.setLong(1, rel(a.start));
        ps.setLong(2, rel(a.start) + a.dur);
        ps.setInt(3, a.api.driver() ? 1 : 0);
        ps.setLong(4, globalTid);
        ps.setLong(5, a.correlation);
        ps.setLong(6, apiNames.computeIfAbsent(a.api, k -> string(NSYS_NAMES.get(k))));
        ps.setInt(7, 0);
        ps.setNull(8, java.sql.Types.INTEGER);
        runtime.add();
        rows++;
    }

    private void kernel(RankStep.GpuOp g, long graphId) throws SQLException {
        KernelSpec spec = g.entry.spec();
        long[] names = kernelNames.computeIfAbsent(spec, k -> new long[] {string(k.name()), string(shortName(k.name()))});
        LaunchShape shape = spec.shape();
        PreparedStatement ps = kernels.ps;
        int i = gpuCommon(ps, g);
        ps.setLong(i++, names[0]);
        ps.setLong(i++, names[1]);
        ps.setNull(i++, java.sql.Types.INTEGER);
        ps.setInt(i++, 1);
        ps.setInt(i++, 0);
        ps.setInt(i++, shape.registersPerThread());
        ps.setInt(i++, shape.gridX());
        ps.setInt(i++, shape.gridY());
        ps.setInt(i++, shape.gridZ());
        ps.setInt(i++, shape.blockX());
        ps.setInt(i++, shape.blockY());
        ps.setInt(i++, shape.blockZ());
        ps.setInt(i++, 0);
        ps.setInt(i++, shape.sharedMemory());
        ps.setInt(i++, 0);
        ps.setInt(i++, 0);
        ps.setLong(i++, ++gridId);
        ps.setInt(i++, shape.sharedMemory());
        if (g.graphNodeId >= 0) {
            ps.setLong(i++, g.graphNodeId);
        } else {
            ps.setNull(i++, java.sql.Types.INTEGER);
        }
        ps.setNull(i++, java.sql.Types.INTEGER);
        if (g.graphNodeId >= 0 && graphId >= 0) {
            ps.setLong(i++, graphId);
        } else {
            ps.setNull(i++, java.sql.Types.INTEGER);
        }
        ps.setNull(i++, java.sql.Types.INTEGER);
        ps.setNull(i, java.sql.Types.INTEGER);
        kernels.add();
        rows++;
    }

    private void memcpy(RankStep.GpuOp g) throws SQLException {
        KernelSpec spec = g.entry.spec();
        long[] kinds = memcpyKinds.computeIfAbsent(spec, NsysSqliteWriter::memcpyKinds);
        PreparedStatement ps = memcpys.ps;
        int i = gpuCommon(ps, g);
        ps.setLong(i++, spec.memcpyBytes());
        ps.setLong(i++, kinds[0]);
        ps.setNull(i++, java.sql.Types.INTEGER);
        ps.setLong(i++, kinds[1]);
        ps.setLong(i++, kinds[2]);
        ps.setInt(i++, device);
        ps.setInt(i++, 1);
        ps.setInt(i++, device);
        ps.setInt(i++, 1);
        ps.setNull(i++, java.sql.Types.INTEGER);
        ps.setNull(i++, java.sql.Types.INTEGER);
        ps.setNull(i, java.sql.Types.INTEGER);
        memcpys.add();
        rows++;
    }

    /**
     * The columns GPU activity tables start with: start, end, deviceId, contextId, greenContextId,
     * streamId, correlationId, globalPid. Returns the next parameter index.
     */
    private int gpuCommon(PreparedStatement ps, RankStep.GpuOp g) throws SQLException {
        ps.setLong(1, rel(g.start));
        ps.setLong(2, rel(g.start) + g.dur);
        ps.setInt(3, device);
        ps.setInt(4, 1);
        ps.setNull(5, java.sql.Types.INTEGER);
        ps.setInt(6, workload.stream(g.entry.spec()));
        ps.setLong(7, g.correlation);
        ps.setLong(8, globalPid);
        return 9;
    }

    /** {copyKind, srcKind, dstKind} of a memcpy named as Kineto names it. */
    private static long[] memcpyKinds(KernelSpec spec) {
        Matcher m = MEMCPY.matcher(spec.name());
        if (!m.matches()) {
            return new long[] {0, 7, 7};
        }
        return new long[] {CuptiNames.copyKindCode(m.group(1)), CuptiNames.memKindCode(m.group(2)),
            CuptiNames.memKindCode(m.group(3))};
    }

    /** nsys's shortName: the function name without return type, scope, template arguments and parameters. */
    public static String shortName(String demangled) {
        String s = demangled.startsWith("void ") ? demangled.substring(5) : demangled;
        int depth = 0;
        int cut = s.length();
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '(' && depth == 0) {
                cut = i;
                break;
            }
            if (ch == '<') {
                if (depth == 0) {
                    cut = Math.min(cut, i);
                }
                depth++;
            } else if (ch == '>') {
                depth--;
            }
        }
        s = s.substring(0, Math.min(cut, s.length()));
        int colon = s.lastIndexOf("::");
        return colon >= 0 ? s.substring(colon + 2) : s;
    }

    private long string(String s) {
        return strings.computeIfAbsent(s, k -> (long) strings.size());
    }

    private void exec(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
        rows++;
    }

    /** Flushes the batches, writes StringIds and commits. */
    public void finish() throws IOException {
        try {
            kernels.flush();
            memcpys.flush();
            runtime.flush();
            nvtx.flush();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO StringIds VALUES (?, ?)")) {
                int n = 0;
                for (Map.Entry<String, Long> e : strings.entrySet()) {
                    ps.setLong(1, e.getValue());
                    ps.setString(2, e.getKey());
                    ps.addBatch();
                    if (++n % BATCH == 0) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
        } catch (SQLException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            kernels.ps.close();
            memcpys.ps.close();
            runtime.ps.close();
            nvtx.ps.close();
            c.close();
        } catch (SQLException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** The tables written, with nsys's column names and types (a subset of its schema's tables). */
    private static final String[] SCHEMA = {
        "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT)",
        "CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT)",
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)",
        "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,"
                + " isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER,"
                + " clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT,"
                + " cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER)",
        "CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER NOT NULL, hwId INTEGER NOT NULL,"
                + " vmId INTEGER NOT NULL, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL,"
                + " contextId INTEGER NOT NULL, parentContextId INTEGER, isGreenContext INTEGER)",
        "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT)",
        "CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER)",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
                + " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
                + " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,"
                + " shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,"
                + " registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,"
                + " gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,"
                + " staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,"
                + " localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,"
                + " sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER, graphId INTEGER,"
                + " clusterX INTEGER, clusterY INTEGER)",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
                + " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
                + " streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,"
                + " copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,"
                + " srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,"
                + " migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER)",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
                + " eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,"
                + " returnValue INTEGER NOT NULL, callchainId INTEGER)",
        "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,"
                + " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,"
                + " domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,"
                + " int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT)",
    };
}
