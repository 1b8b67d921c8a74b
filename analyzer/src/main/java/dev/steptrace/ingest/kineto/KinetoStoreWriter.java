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
import dev.steptrace.store.CpuOpColumns;
import dev.steptrace.store.GpuOpColumns;
import dev.steptrace.store.LaunchColumns;
import dev.steptrace.store.TableBatch;

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
    private final TableBatch gpu;
    private final TableBatch cpu;
    private final TableBatch launch;
    private final TableBatch comm;
    private final OpShapes shapes;
    private final GpuOpColumns g;
    private final CpuOpColumns c;
    private final int[] cpuKinds = new int[EventKind.values().length];
    private final LaunchColumns l;
    private final CommColumns m;

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
            comm = sink.table("comm_meta", 4096);
            // Opened now, not when the first name spills mid-stream: opening queries the connection,
            // which the inserter thread may be using then.
            sink.table("names");
            g = sink.gpuColumns();
            c = sink.cpuColumns();
            l = sink.launchColumns();
            m = new CommColumns(comm);
            shapes = new OpShapes(sink.table("op_shapes", 4096), fileId);
        } catch (SQLException | RuntimeException e) {
            sink.close();
            throw e;
        }
        cpuKinds[EventKind.CPU_OP.ordinal()] = c.cpuOp;
        cpuKinds[EventKind.USER_ANNOTATION.ordinal()] = c.userAnnotation;
        cpuKinds[EventKind.GPU_USER_ANNOTATION.ordinal()] = c.gpuUserAnnotation;
        cpuKinds[EventKind.PYTHON_FUNCTION.ordinal()] = c.pythonFunction;
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
        gpu.setInt(g.file, fileId);
        gpu.setEnum(g.kind, gpuKind(e.kind));
        gpu.setInt(g.name, nameId);
        // GPU events: pid is the device and tid the stream, when the args do not say.
        if (e.has(TraceEvent.DEVICE)) {
            gpu.setInt(g.device, e.device);
        } else if (e.has(TraceEvent.PID)) {
            gpu.setInt(g.device, (int) e.pid);
        }
        if (e.has(TraceEvent.STREAM)) {
            gpu.setLong(g.stream, e.stream);
        } else if (e.has(TraceEvent.TID)) {
            gpu.setLong(g.stream, e.tid);
        }
        gpu.setLong(g.ts, ts);
        gpu.setLong(g.dur, e.durNs);
        gpu.setLongIf(e.has(TraceEvent.CORRELATION), g.correlation, e.correlation);
        gpu.setLongIf(e.has(TraceEvent.EXTERNAL_ID), g.externalId, e.externalId);
        gpu.setLongIf(e.has(TraceEvent.BYTES), g.bytes, e.bytes);
        gpu.setLongIf(e.has(TraceEvent.GRAPH_ID), g.graphId, e.graphId);
        gpu.setLongIf(e.has(TraceEvent.GRAPH_NODE_ID), g.graphNodeId, e.graphNodeId);
        if (e.has(TraceEvent.GRID)) {
            gpu.setInt(g.gridX, e.grid[0]);
            gpu.setInt(g.gridX + 1, e.grid[1]);
            gpu.setInt(g.gridX + 2, e.grid[2]);
        }
        if (e.has(TraceEvent.BLOCK)) {
            gpu.setInt(g.blockX, e.block[0]);
            gpu.setInt(g.blockX + 1, e.block[1]);
            gpu.setInt(g.blockX + 2, e.block[2]);
        }
        gpu.endRow();
    }

    private int gpuKind(EventKind k) {
        switch (k) {
            case KERNEL:
                return g.kernel;
            case MEMCPY:
                return g.memcpy;
            case MEMSET:
                return g.memset;
            default:
                return g.sync;
        }
    }

    private void writeCpu(TraceEvent e, int nameId, long ts) throws SQLException {
        cpu.setInt(c.file, fileId);
        cpu.setEnum(c.kind, cpuKinds[e.kind.ordinal()]);
        cpu.setInt(c.name, nameId);
        cpu.setLongIf(e.has(TraceEvent.PID), c.pid, e.pid);
        cpu.setLongIf(e.has(TraceEvent.TID), c.tid, e.tid);
        cpu.setLong(c.ts, ts);
        cpu.setLong(c.dur, e.durNs);
        cpu.setLongIf(e.has(TraceEvent.EXTERNAL_ID), c.externalId, e.externalId);
        if (e.hasInputs()) {
            cpu.setInt(c.shapeId, shapes.idOf(e.inputs()));
        }
        cpu.endRow();
    }

    private void writeLaunch(TraceEvent e, int nameId, long ts) throws SQLException {
        launch.setInt(l.file, fileId);
        launch.setEnum(l.kind, e.kind == EventKind.DRIVER ? l.driver : l.runtime);
        launch.setInt(l.name, nameId);
        launch.setLongIf(e.has(TraceEvent.PID), l.pid, e.pid);
        launch.setLongIf(e.has(TraceEvent.TID), l.tid, e.tid);
        launch.setLong(l.ts, ts);
        launch.setLong(l.dur, e.durNs);
        launch.setLongIf(e.has(TraceEvent.CORRELATION), l.correlation, e.correlation);
        launch.setLongIf(e.has(TraceEvent.EXTERNAL_ID), l.externalId, e.externalId);
        launch.setIntIf(e.has(TraceEvent.CBID), l.cbid, e.cbid);
        launch.endRow();
    }

    private void writeComm(TraceEvent e, long ts) throws SQLException {
        TraceEvent.CommArgs a = e.comm();
        comm.setInt(m.file, fileId);
        comm.setEnum(m.source, e.kind == EventKind.KERNEL ? m.kernel : m.cpuOp);
        comm.setLong(m.ts, ts);
        comm.setLongIf(e.has(TraceEvent.CORRELATION), m.correlation, e.correlation);
        comm.setLongIf(e.has(TraceEvent.EXTERNAL_ID), m.externalId, e.externalId);
        comm.setString(m.collective, a.collective);
        comm.setString(m.dtype, a.dtype);
        comm.setLongOrNull(m.inNelems, a.inNelems);
        comm.setLongOrNull(m.outNelems, a.outNelems);
        comm.setIntOrNull(m.groupSize, a.groupSize);
        comm.setString(m.pgName, a.pgName);
        comm.setString(m.pgDesc, a.pgDesc);
        comm.setString(m.pgRanks, a.pgRanks);
        comm.setIntOrNull(m.rank, a.rank);
        comm.setIntOrNull(m.srcRank, a.srcRank);
        comm.setIntOrNull(m.dstRank, a.dstRank);
        comm.setLongOrNull(m.seq, a.seq);
        if (a.commsId != null) {
            comm.setUnsignedLong(m.commsId, Long.parseUnsignedLong(a.commsId));
        }
        comm.setString(m.inSplit, a.inSplit);
        comm.setString(m.outSplit, a.outSplit);
        if (a.isAsync != null) {
            comm.setBoolean(m.isAsync, a.isAsync);
        }
        comm.endRow();
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
                comm.rowsWritten());
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

    private static final class CommColumns {
        final int file;
        final int source;
        final int ts;
        final int correlation;
        final int externalId;
        final int collective;
        final int dtype;
        final int inNelems;
        final int outNelems;
        final int groupSize;
        final int pgName;
        final int pgDesc;
        final int pgRanks;
        final int rank;
        final int srcRank;
        final int dstRank;
        final int seq;
        final int commsId;
        final int inSplit;
        final int outSplit;
        final int isAsync;
        final int kernel;
        final int cpuOp;

        CommColumns(TableBatch b) {
            file = b.column("file_id");
            source = b.column("source");
            ts = b.column("ts_ns");
            correlation = b.column("correlation");
            externalId = b.column("external_id");
            collective = b.column("collective");
            dtype = b.column("dtype");
            inNelems = b.column("in_nelems");
            outNelems = b.column("out_nelems");
            groupSize = b.column("group_size");
            pgName = b.column("pg_name");
            pgDesc = b.column("pg_desc");
            pgRanks = b.column("pg_ranks");
            rank = b.column("rank");
            srcRank = b.column("src_rank");
            dstRank = b.column("dst_rank");
            seq = b.column("seq");
            commsId = b.column("comms_id");
            inSplit = b.column("in_split");
            outSplit = b.column("out_split");
            isAsync = b.column("is_async");
            kernel = b.enumCode(source, "kernel");
            cpuOp = b.enumCode(source, "cpu_op");
        }
    }
}
