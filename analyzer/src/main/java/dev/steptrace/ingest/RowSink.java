package dev.steptrace.ingest;

import dev.steptrace.store.CommMetaWriter;
import dev.steptrace.store.CpuOpWriter;
import dev.steptrace.store.GpuOpWriter;
import dev.steptrace.store.LaunchWriter;
import dev.steptrace.store.NamedRow;
import dev.steptrace.store.OpShapeWriter;
import dev.steptrace.store.TableBatch;
import dev.steptrace.store.TableColumns;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Where an {@link Importer} puts one file's rows: the store's tables (docs/schema.md), inside the
 * caller's open transaction. Every importer writes through it, so rows of every format are written by
 * one piece of code: a typed writer per event table ({@link #gpuOps}, {@link #cpuOps}, {@link #launches},
 * {@link #commMeta}, {@link #opShapes}: columns found by name once per file, rows into a {@link TableBatch}),
 * names one row per id, devices and tracks as {@link NamedRow}s at {@link #finish}.
 *
 * <p>Batches are opened on first use. Given an inserter, full batches are inserted on it while the
 * importer fills the next (see {@link TableBatch}); the connection is then the inserter's until
 * {@link #flushAll} returns.
 */
public final class RowSink implements AutoCloseable {
    /** One {@code devices} row. */
    public record Device(int id, String name, Long totalMemory, Integer computeMajor, Integer computeMinor,
                         Integer numSms, String propertiesJson) {}

    private final Connection connection;
    private final BufferAllocator allocator;
    private final TableColumns.Cache tables;
    private final int fileId;
    private final int batchRows;
    private final ExecutorService inserter;
    private final Map<String, TableBatch> batches = new LinkedHashMap<>();
    private final List<NamedRow> devices = new ArrayList<>();
    private final List<NamedRow> tracks = new ArrayList<>();
    private GpuOpWriter gpuOps;
    private CpuOpWriter cpuOps;
    private LaunchWriter launches;
    private CommMetaWriter commMeta;
    private OpShapeWriter opShapes;
    private int nameFile = -1;
    private int nameId;
    private int nameText;

    /**
     * @param tables    the store's table columns, read once for all files
     * @param batchRows rows per batch of an event table
     * @param inserter  the thread that inserts full batches while the next fills, or null to insert inline
     */
    public RowSink(Connection connection, BufferAllocator allocator, TableColumns.Cache tables, int fileId,
                   int batchRows, ExecutorService inserter) {
        this.connection = connection;
        this.allocator = allocator;
        this.tables = tables;
        this.fileId = fileId;
        this.batchRows = batchRows;
        this.inserter = inserter;
    }

    public int fileId() {
        return fileId;
    }

    /** The file's connection, for statements of the importer's own (after {@link #flushAll}). */
    public Connection connection() {
        return connection;
    }

    /** The batch of {@code table}, opened on first use with {@code rows} rows per batch. */
    private TableBatch table(String table, int rows) throws SQLException {
        TableBatch b = batches.get(table);
        if (b == null) {
            b = TableBatch.of(tables.of(connection, table), connection, allocator, rows, inserter);
            batches.put(table, b);
        }
        return b;
    }

    /** The file's {@code gpu_ops} rows. */
    public GpuOpWriter gpuOps() throws SQLException {
        if (gpuOps == null) {
            gpuOps = new GpuOpWriter(table("gpu_ops", batchRows), fileId);
        }
        return gpuOps;
    }

    /** The file's {@code cpu_ops} rows. */
    public CpuOpWriter cpuOps() throws SQLException {
        if (cpuOps == null) {
            cpuOps = new CpuOpWriter(table("cpu_ops", batchRows), fileId);
        }
        return cpuOps;
    }

    /** The file's {@code launches} rows. */
    public LaunchWriter launches() throws SQLException {
        if (launches == null) {
            launches = new LaunchWriter(table("launches", batchRows), fileId);
        }
        return launches;
    }

    /** The file's {@code comm_meta} rows, {@code rows} to a batch (a trace has few). */
    public CommMetaWriter commMeta(int rows) throws SQLException {
        if (commMeta == null) {
            commMeta = new CommMetaWriter(table("comm_meta", rows), fileId);
        }
        return commMeta;
    }

    /** The file's {@code op_shapes} rows, {@code rows} to a batch. */
    public OpShapeWriter opShapes(int rows) throws SQLException {
        if (opShapes == null) {
            opShapes = new OpShapeWriter(table("op_shapes", rows), fileId);
        }
        return opShapes;
    }

    /**
     * Opens the {@code names} batch now, for an importer that writes names while its batches are inserted on
     * another thread: opening queries the connection, which the inserter may be using later.
     */
    public void openNames() throws SQLException {
        names();
    }

    private TableBatch names() throws SQLException {
        TableBatch b = table("names", batchRows);
        if (nameFile < 0) {
            nameFile = b.column("file_id");
            nameId = b.column("name_id");
            nameText = b.column("name");
        }
        return b;
    }

    /** A {@code names} row of this file: event rows point to it by {@code nameId}. */
    public void name(int id, String text) throws SQLException {
        TableBatch b = names();
        b.setInt(nameFile, fileId);
        b.setInt(nameId, id);
        b.setString(nameText, text);
        b.endRow();
    }

    /** A {@code devices} row, written at {@link #finish}. */
    public void device(Device d) {
        devices.add(new NamedRow().set("file_id", fileId).set("device_id", d.id()).set("name", d.name())
                .set("total_memory", d.totalMemory()).set("compute_major", d.computeMajor())
                .set("compute_minor", d.computeMinor()).set("num_sms", d.numSms()).set("properties", d.propertiesJson()));
    }

    /** A {@code tracks} row (a process when {@code tid} is null), written at {@link #finish}. */
    public void track(long pid, Long tid, String name, String labels, Long sortIndex) {
        tracks.add(new NamedRow().set("file_id", fileId).set("pid", pid).set("tid", tid).set("name", name)
                .set("labels", labels).set("sort_index", sortIndex));
    }

    /** Inserts every buffered row (and waits for the inserter): the connection is free for other statements. */
    public void flushAll() throws SQLException {
        for (TableBatch b : batches.values()) {
            b.flush();
        }
    }

    /** Flushes a table's batch and frees its buffers: for importers that write one table after another. */
    public void done(String table) throws SQLException {
        TableBatch b = batches.remove(table);
        if (b != null) {
            try {
                b.flush();
            } finally {
                b.close();
            }
            switch (table) {
                case "gpu_ops" -> gpuOps = null;
                case "cpu_ops" -> cpuOps = null;
                case "launches" -> launches = null;
                case "comm_meta" -> commMeta = null;
                case "op_shapes" -> opShapes = null;
                case "names" -> nameFile = -1;
                default -> { }
            }
        }
    }

    /** Flushes every batch, then writes the devices and tracks. */
    public void finish() throws SQLException {
        flushAll();
        NamedRow.insert(connection, "devices", devices);
        NamedRow.insert(connection, "tracks", tracks);
        devices.clear();
        tracks.clear();
    }

    @Override
    public void close() {
        for (TableBatch b : batches.values()) {
            b.close();
        }
        batches.clear();
    }
}
