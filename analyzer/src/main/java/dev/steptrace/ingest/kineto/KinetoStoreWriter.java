package dev.steptrace.ingest.kineto;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import dev.steptrace.ingest.RowSink;
import dev.steptrace.ingest.StoreWriteException;
import dev.steptrace.store.CommMetaWriter;
import dev.steptrace.store.CpuOpWriter;
import dev.steptrace.store.GpuOpWriter;
import dev.steptrace.store.LaunchWriter;

/**
 * Writes what {@link KinetoReader} keeps from one file into the store's event tables through the
 * file's {@link RowSink}, inside the caller's open transaction. Timestamps get the file's
 * {@code baseTimeNanoseconds} added, so every stored time is absolute epoch nanoseconds.
 */
public final class KinetoStoreWriter implements TraceEventSink, AutoCloseable {
    /** Rows per batch of an event table. */
    static final int BATCH_ROWS = 65536;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] TIMED_TABLES = {"gpu_ops", "cpu_ops", "launches", "comm_meta"};

    private static final int PROGRESS_EVERY = 8192;

    private final AtomicLong eventsCounter;
    private int eventsSinceProgress;
    private final RowSink sink;
    private final Connection connection;
    private final int fileId;
    private final NameDictionary names;
    private final BitSet usedNames = new BitSet();
    private boolean spilledNames;
    private final GpuOpWriter gpu;
    private final CpuOpWriter cpu;
    private final LaunchWriter launch;
    private final CommMetaWriter comm;
    private final OpShapes shapes;
    private final CpuOpWriter.Kind[] cpuKinds = new CpuOpWriter.Kind[EventKind.values().length];

    private long baseNs;
    private long lateBaseNs;
    private long firstTs = Long.MAX_VALUE;
    private long lastTs = Long.MIN_VALUE;
    private String distributedInfo;
    private Integer distributedRank;
    private Integer worldSize;
    private final ObjectNode metadata = JSON.createObjectNode();
    private final java.util.Map<List<Long>, Track> tracks = new java.util.LinkedHashMap<>();

    /**
     * @param sink          the file's rows; closed with this writer
     * @param eventsCounter progress counter shared by concurrent loads, bumped every few thousand events
     */
    public KinetoStoreWriter(RowSink sink, AtomicLong eventsCounter) throws SQLException {
        this.sink = sink;
        this.eventsCounter = eventsCounter;
        this.connection = sink.connection();
        this.fileId = sink.fileId();
        this.names = new NameDictionary(this::spilledName);
        try {
            gpu = sink.gpuOps();
            cpu = sink.cpuOps();
            launch = sink.launches();
            comm = sink.commMeta(4096);
            // Opened now, not when the first name spills mid-stream: opening queries the connection,
            // which the inserter thread may be using then.
            sink.openNames();
            shapes = new OpShapes(sink.opShapes(4096));
        } catch (SQLException | RuntimeException e) {
            sink.close();
            throw e;
        }
        cpuKinds[EventKind.CPU_OP.ordinal()] = CpuOpWriter.Kind.CPU_OP;
        cpuKinds[EventKind.USER_ANNOTATION.ordinal()] = CpuOpWriter.Kind.USER_ANNOTATION;
        cpuKinds[EventKind.GPU_USER_ANNOTATION.ordinal()] = CpuOpWriter.Kind.GPU_USER_ANNOTATION;
        cpuKinds[EventKind.PYTHON_FUNCTION.ordinal()] = CpuOpWriter.Kind.PYTHON_FUNCTION;
    }

    /** The file's name dictionary, for the reader: names it does not keep are written to the store at once. */
    public NameDictionary names() {
        return names;
    }

    /**
     * A name whose text the dictionary does not keep (a file with millions of distinct names): its row
     * goes into {@code names} now; if no kept event uses it, {@link #finish} deletes it again.
     */
    private void spilledName(int id, char[] buf, int off, int len) {
        try {
            spilledNames = true;
            sink.name(id, new String(buf, off, len));
        } catch (SQLException e) {
            throw new StoreWriteException(e);
        }
    }

    @Override
    public void event(TraceEvent e) {
        if (++eventsSinceProgress == PROGRESS_EVERY) {
            eventsCounter.addAndGet(PROGRESS_EVERY);
            eventsSinceProgress = 0;
        }
        try {
            long ts = e.tsNs + baseNs;
            firstTs = Math.min(firstTs, ts);
            lastTs = Math.max(lastTs, ts + e.durNs);
            int nameId = e.nameId < 0 ? names.idOf("") : e.nameId;
            usedNames.set(nameId);
            switch (e.kind) {
                case KERNEL:
                case MEMCPY:
                case MEMSET:
                case SYNC:
                    writeGpu(e, nameId, ts);
                    break;
                case RUNTIME:
                case DRIVER:
                    writeLaunch(e, nameId, ts);
                    break;
                default:
                    writeCpu(e, nameId, ts);
            }
            if (e.hasComm()) {
                writeComm(e, ts);
            }
        } catch (SQLException ex) {
            throw new StoreWriteException(ex);
        }
    }

    private void writeGpu(TraceEvent e, int nameId, long ts) throws SQLException {
        gpu.start(gpuKind(e.kind), nameId, ts, e.durNs);
        // GPU events: pid is the device and tid the stream, when the args do not say.
        if (e.has(TraceEvent.DEVICE)) {
            gpu.device(e.device);
        } else if (e.has(TraceEvent.PID)) {
            gpu.device((int) e.pid);
        }
        if (e.has(TraceEvent.STREAM)) {
            gpu.stream(e.stream);
        } else if (e.has(TraceEvent.TID)) {
            gpu.stream(e.tid);
        }
        if (e.has(TraceEvent.CORRELATION)) {
            gpu.correlation(e.correlation);
        }
        if (e.has(TraceEvent.EXTERNAL_ID)) {
            gpu.externalId(e.externalId);
        }
        if (e.has(TraceEvent.BYTES)) {
            gpu.bytes(e.bytes);
        }
        if (e.has(TraceEvent.GRAPH_ID)) {
            gpu.graphId(e.graphId);
        }
        if (e.has(TraceEvent.GRAPH_NODE_ID)) {
            gpu.graphNodeId(e.graphNodeId);
        }
        for (int axis = 0; axis < 3 && e.has(TraceEvent.GRID); axis++) {
            gpu.grid(axis, e.grid[axis]);
        }
        for (int axis = 0; axis < 3 && e.has(TraceEvent.BLOCK); axis++) {
            gpu.block(axis, e.block[axis]);
        }
        gpu.end();
    }

    private static GpuOpWriter.Kind gpuKind(EventKind k) {
        switch (k) {
            case KERNEL:
                return GpuOpWriter.Kind.KERNEL;
            case MEMCPY:
                return GpuOpWriter.Kind.MEMCPY;
            case MEMSET:
                return GpuOpWriter.Kind.MEMSET;
            default:
                return GpuOpWriter.Kind.SYNC;
        }
    }

    private void writeCpu(TraceEvent e, int nameId, long ts) throws SQLException {
        cpu.start(cpuKinds[e.kind.ordinal()], nameId, ts, e.durNs);
        if (e.has(TraceEvent.PID)) {
            cpu.pid(e.pid);
        }
        if (e.has(TraceEvent.TID)) {
            cpu.tid(e.tid);
        }
        if (e.has(TraceEvent.EXTERNAL_ID)) {
            cpu.externalId(e.externalId);
        }
        if (e.hasInputs()) {
            cpu.shapeId(shapes.idOf(e.inputs()));
        }
        cpu.end();
    }

    private void writeLaunch(TraceEvent e, int nameId, long ts) throws SQLException {
        launch.start(e.kind == EventKind.DRIVER ? LaunchWriter.Kind.DRIVER : LaunchWriter.Kind.RUNTIME, nameId, ts,
                e.durNs);
        if (e.has(TraceEvent.PID)) {
            launch.pid(e.pid);
        }
        if (e.has(TraceEvent.TID)) {
            launch.tid(e.tid);
        }
        if (e.has(TraceEvent.CORRELATION)) {
            launch.correlation(e.correlation);
        }
        if (e.has(TraceEvent.EXTERNAL_ID)) {
            launch.externalId(e.externalId);
        }
        if (e.has(TraceEvent.CBID)) {
            launch.cbid(e.cbid);
        }
        launch.end();
    }

    private void writeComm(TraceEvent e, long ts) throws SQLException {
        TraceEvent.CommArgs a = e.comm();
        comm.start(e.kind == EventKind.KERNEL ? CommMetaWriter.Source.KERNEL : CommMetaWriter.Source.CPU_OP, ts);
        if (e.has(TraceEvent.CORRELATION)) {
            comm.correlation(e.correlation);
        }
        if (e.has(TraceEvent.EXTERNAL_ID)) {
            comm.externalId(e.externalId);
        }
        comm.collective(a.collective, a.dtype);
        comm.elements(a.inNelems, a.outNelems);
        comm.group(a.groupSize, a.pgName, a.pgDesc, a.pgRanks);
        comm.ranks(a.rank, a.srcRank, a.dstRank);
        comm.seq(a.seq);
        comm.commsId(a.commsId);
        comm.splits(a.inSplit, a.outSplit);
        comm.async(a.isAsync);
        comm.end();
    }

    @Override
    public void baseTimeNanos(long base, boolean beforeEvents) {
        if (beforeEvents) {
            baseNs = base;
        } else {
            lateBaseNs = base;
        }
    }

    @Override
    public void device(DeviceInfo d) {
        sink.device(new RowSink.Device(d.id(), d.name(), d.totalMemory(), d.computeMajor(), d.computeMinor(),
                d.numSms(), d.json()));
    }

    @Override
    public void distributedInfo(String json, Integer rank, Integer worldSize) {
        this.distributedInfo = json;
        this.distributedRank = rank;
        this.worldSize = worldSize;
    }

    @Override
    public void metadata(String key, String json) {
        try {
            metadata.set(key, JSON.readTree(json));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void track(long pid, Long tid, String field, String value, Long sortIndex) {
        // Name, labels and sort index of one process or thread arrive as separate metadata events.
        Track t = tracks.computeIfAbsent(java.util.Arrays.asList(pid, tid), k -> new Track(pid, tid));
        if (field.endsWith("_name")) {
            t.name = value;
        } else if (field.endsWith("_labels")) {
            t.labels = value;
        } else if (field.endsWith("_sort_index")) {
            t.sortIndex = sortIndex;
        }
    }

    /** Flushes every batch and writes the file's names, devices and tracks. */
    public Summary finish() throws SQLException {
        eventsCounter.addAndGet(eventsSinceProgress);
        eventsSinceProgress = 0;
        sink.flushAll();
        if (lateBaseNs != 0) {
            // Builds before 2025-03 wrote baseTimeNanoseconds after the events.
            for (String table : TIMED_TABLES) {
                try (PreparedStatement ps = connection.prepareStatement(
                        "UPDATE " + table + " SET ts_ns = ts_ns + ? WHERE file_id = ?")) {
                    ps.setLong(1, lateBaseNs);
                    ps.setInt(2, fileId);
                    ps.executeUpdate();
                }
            }
            baseNs = lateBaseNs;
            if (firstTs != Long.MAX_VALUE) {
                firstTs += lateBaseNs;
                lastTs += lateBaseNs;
            }
        }
        writeNames();
        for (Track t : tracks.values()) {
            sink.track(t.pid, t.tid, t.name, t.labels, t.sortIndex);
        }
        sink.finish();
        return new Summary(baseNs, firstTs == Long.MAX_VALUE ? null : firstTs,
                lastTs == Long.MIN_VALUE ? null : lastTs, distributedInfo, distributedRank, worldSize,
                metadata.isEmpty() ? null : metadata.toString(),
                metadata.hasNonNull("host_name") ? metadata.get("host_name").asText() : null,
                comm.rows());
    }

    private void writeNames() throws SQLException {
        if (spilledNames) {
            // Spilled names were written when first seen (flushed above): those no kept event uses go again.
            try (PreparedStatement ps = connection.prepareStatement("""
                    DELETE FROM names n WHERE n.file_id = ? AND n.name_id >= ?
                    AND NOT EXISTS (SELECT 1 FROM gpu_ops g WHERE g.file_id = n.file_id AND g.name_id = n.name_id)
                    AND NOT EXISTS (SELECT 1 FROM cpu_ops c WHERE c.file_id = n.file_id AND c.name_id = n.name_id)
                    AND NOT EXISTS (SELECT 1 FROM launches l WHERE l.file_id = n.file_id AND l.name_id = n.name_id)
                    """)) {
                ps.setInt(1, fileId);
                ps.setInt(2, names.keptTexts());
                ps.executeUpdate();
            }
        }
        int kept = names.keptTexts();
        for (int n = usedNames.nextSetBit(0); n >= 0 && n < kept; n = usedNames.nextSetBit(n + 1)) {
            sink.name(n, names.name(n));
        }
    }

    @Override
    public void close() {
        sink.close();
    }

    /** What the files row needs from the writer. */
    public record Summary(long baseTimeNs, Long firstTsNs, Long lastTsNs, String distributedInfo,
                          Integer distributedRank, Integer worldSize, String metadata, String hostName,
                          long commRows) {}

    private static final class Track {
        final long pid;
        final Long tid;
        String name;
        String labels;
        Long sortIndex;

        Track(long pid, Long tid) {
            this.pid = pid;
            this.tid = tid;
        }
    }
}
