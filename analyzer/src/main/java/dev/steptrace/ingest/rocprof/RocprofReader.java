package dev.steptrace.ingest.rocprof;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.steptrace.ingest.FileSummary;
import dev.steptrace.ingest.RowSink;
import dev.steptrace.ingest.TimeLimits;
import dev.steptrace.store.GpuOpWriter;
import dev.steptrace.store.LaunchWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Maps a rocprofv3 kernel trace (and the memory copy and HIP API traces beside it) onto the store's
 * tables through a {@link RowSink}. docs/formats.md documents the mapping; in short: each
 * {@code KERNEL_DISPATCH} row is a {@code gpu_ops} kernel on device {@code Agent_Id} (the number of
 * {@code Agent 4} or {@code 4}), stream {@code Stream_Id} (else {@code Queue_Id}), with its
 * {@code Correlation_Id}; times are nanoseconds as written; {@code Grid_Size} counts work-items, so
 * {@code grid_x} is {@code ceil(Grid_Size_X / Workgroup_Size_X)} (blocks, as CUDA and Kineto count
 * them). Memory copies are memcpy rows named as Kineto names them ({@code Memcpy HtoD}); HIP API calls
 * are {@code launches} rows (runtime), whose correlation ids match the kernels'.
 *
 * <p>A row that cannot be read (a field that is not a number, an unterminated quote) is skipped and
 * counted; the file is then {@code partial}, its reason naming the first such line. The rest loads.
 */
final class RocprofReader {
    static final int BATCH_ROWS = 1 << 14;
    private static final int PROGRESS_EVERY = 8192;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** rocprofv3's copy directions, as Kineto's copy kinds. */
    private static final Map<String, String> DIRECTIONS = Map.of(
            "MEMORY_COPY_HOST_TO_DEVICE", "HtoD",
            "MEMORY_COPY_DEVICE_TO_HOST", "DtoH",
            "MEMORY_COPY_DEVICE_TO_DEVICE", "DtoD",
            "MEMORY_COPY_HOST_TO_HOST", "HtoH",
            "MEMORY_COPY_PEER_TO_PEER", "PtoP");

    private final RowSink sink;
    private final AtomicLong eventsCounter;
    private final FileSummary out = new FileSummary();
    private final Map<String, Integer> names = new LinkedHashMap<>();
    private final ObjectNode meta = JSON.createObjectNode();
    private long firstTs = Long.MAX_VALUE;
    private long lastTs = Long.MIN_VALUE;
    private int sinceProgress;
    private Path current;

    RocprofReader(RowSink sink, AtomicLong eventsCounter) {
        this.sink = sink;
        this.eventsCounter = eventsCounter;
    }

    /** Reads the kernel trace ({@code parts[0]}) and the traces beside it. */
    FileSummary read(List<Path> parts) throws IOException, SQLException {
        for (Path part : parts) {
            current = part;
            String name = part.getFileName().toString();
            try (CsvRows rows = new CsvRows(part)) {
                if (name.endsWith(RocprofImporter.MEMORY_COPY_TRACE)) {
                    meta.put("memory_copy_trace", name);
                    memoryCopies(rows);
                } else if (name.endsWith(RocprofImporter.HIP_API_TRACE)) {
                    meta.put("hip_api_trace", name);
                    hipCalls(rows);
                } else {
                    meta.put("kernel_trace", name);
                    kernels(rows);
                }
                out.bytesRead += rows.charsRead();
            }
        }
        eventsCounter.addAndGet(sinceProgress);
        for (Map.Entry<String, Integer> e : names.entrySet()) {
            sink.name(e.getValue(), e.getKey());
        }
        sink.finish();
        out.firstTsNs = firstTs == Long.MAX_VALUE ? null : firstTs;
        out.lastTsNs = lastTs == Long.MIN_VALUE ? null : lastTs;
        ObjectNode root = JSON.createObjectNode();
        root.set("rocprofv3", meta);
        out.metadata = root.toString();
        return out;
    }

    private void kernels(CsvRows rows) throws IOException, SQLException {
        GpuOpWriter gpu = sink.gpuOps();
        int name = required(rows, "Kernel_Name");
        int agent = required(rows, "Agent_Id");
        int stream = rows.column("Stream_Id") >= 0 ? rows.column("Stream_Id") : rows.column("Queue_Id");
        int correlation = rows.column("Correlation_Id");
        int kind = rows.column("Kind");
        int[] grid = {rows.column("Grid_Size_X"), rows.column("Grid_Size_Y"), rows.column("Grid_Size_Z")};
        int[] block = {rows.column("Workgroup_Size_X"), rows.column("Workgroup_Size_Y"), rows.column("Workgroup_Size_Z")};
        eachRow(rows, (ts, dur) -> {
            if (kind >= 0 && !"KERNEL_DISPATCH".equals(rows.get(kind))) {
                out.dropped++;
                return false;
            }
            long device = agentNumber(rows, agent);
            Long streamId = optional(rows, stream);
            Long corr = optional(rows, correlation);
            int[] blocks = new int[3];
            int[] threads = new int[3];
            boolean shape = true;
            for (int i = 0; i < 3; i++) {
                Long items = optional(rows, grid[i]);
                Long size = optional(rows, block[i]);
                if (items == null || size == null || size <= 0 || size > Integer.MAX_VALUE) {
                    shape = false;
                } else {
                    threads[i] = (int) (long) size;
                    blocks[i] = (int) Math.min(Integer.MAX_VALUE, (items + size - 1) / size);
                }
            }
            gpuRow(gpu, GpuOpWriter.Kind.KERNEL, nameId(rows.get(name)), device, streamId, ts, dur, corr);
            if (shape) {
                for (int i = 0; i < 3; i++) {
                    gpu.grid(i, blocks[i]);
                    gpu.block(i, threads[i]);
                }
            }
            gpu.end();
            out.kernels++;
            return true;
        });
    }

    private void memoryCopies(CsvRows rows) throws IOException, SQLException {
        GpuOpWriter gpu = sink.gpuOps();
        int direction = required(rows, "Direction");
        int src = rows.column("Source_Agent_Id");
        int dst = rows.column("Destination_Agent_Id");
        int stream = rows.column("Stream_Id");
        int correlation = rows.column("Correlation_Id");
        int bytes = rows.column("Bytes");
        eachRow(rows, (ts, dur) -> {
            String copy = DIRECTIONS.getOrDefault(rows.get(direction), "Unknown");
            // The GPU's side of the copy: where it lands, unless it lands on the host.
            int agentCol = copy.equals("DtoH") ? src : dst;
            Long device = agentCol >= 0 ? agentNumber(rows, agentCol) : null;
            Long streamId = optional(rows, stream);
            Long corr = optional(rows, correlation);
            Long size = optional(rows, bytes);
            gpuRow(gpu, GpuOpWriter.Kind.MEMCPY, nameId("Memcpy " + copy), device, streamId, ts, dur, corr);
            if (size != null) {
                gpu.bytes(size);
            }
            gpu.end();
            out.memcpys++;
            return true;
        });
    }

    /** The columns a kernel and a memory copy share; the caller adds its own and ends the row. */
    private static void gpuRow(GpuOpWriter gpu, GpuOpWriter.Kind kind, int nameId, Long device, Long stream, long ts,
                               long dur, Long corr) {
        gpu.start(kind, nameId, ts, dur);
        if (device != null) {
            gpu.device((int) (long) device);
        }
        if (stream != null) {
            gpu.stream(stream);
        }
        if (corr != null) {
            gpu.correlation(corr);
        }
    }

    private void hipCalls(CsvRows rows) throws IOException, SQLException {
        LaunchWriter launch = sink.launches();
        int function = required(rows, "Function");
        int pid = rows.column("Process_Id");
        int tid = rows.column("Thread_Id");
        int correlation = rows.column("Correlation_Id");
        eachRow(rows, (ts, dur) -> {
            Long pidValue = optional(rows, pid);
            Long tidValue = optional(rows, tid);
            Long corr = optional(rows, correlation);
            launch.start(LaunchWriter.Kind.RUNTIME, nameId(rows.get(function)), ts, dur);
            if (pidValue != null) {
                launch.pid(pidValue);
            }
            if (tidValue != null) {
                launch.tid(tidValue);
            }
            if (corr != null) {
                launch.correlation(corr);
            }
            launch.end();
            out.runtime++;
            return true;
        });
    }

    /**
     * Writes one row whose times have been read and checked, reading every field before it sets any (a
     * {@link BadField} must leave no half-written row); false when the row is not kept.
     */
    private interface RowWriter {
        boolean write(long ts, long dur) throws BadField, SQLException;
    }

    /**
     * Every row of a trace, with its {@code Start_Timestamp} and duration: rows whose times do not fit
     * the store are dropped, a row with an unreadable field is skipped (and makes the file partial).
     */
    private void eachRow(CsvRows rows, RowWriter writer) throws IOException, SQLException {
        int start = required(rows, "Start_Timestamp");
        int end = required(rows, "End_Timestamp");
        while (rows.next()) {
            try {
                long ts = number(rows, start);
                long dur = duration(ts, number(rows, end));
                if (dur >= 0 && writer.write(ts, dur)) {
                    span(ts, dur);
                }
            } catch (BadField e) {
                bad(rows, e.getMessage());
            }
        }
    }

    /** A field that does not hold what its column needs. */
    private static final class BadField extends Exception {
        BadField(String message) {
            super(message, null, false, false);
        }
    }

    private int required(CsvRows rows, String column) throws IOException {
        int i = rows.column(column);
        if (i < 0) {
            throw new IOException(current.getFileName() + ": no " + column + " column in the CSV header");
        }
        return i;
    }

    private static long number(CsvRows rows, int column) throws BadField {
        if (rows.malformed() != null) {
            throw new BadField(rows.malformed());
        }
        String v = rows.get(column);
        if (v == null || v.isEmpty()) {
            throw new BadField("a missing field");
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new BadField("'" + (v.length() > 40 ? v.substring(0, 40) + "..." : v) + "' is not an integer");
        }
    }

    private static Long optional(CsvRows rows, int column) throws BadField {
        if (column < 0 || rows.get(column) == null || rows.get(column).isEmpty()) {
            return null;
        }
        return number(rows, column);
    }

    /** {@code Agent 4} (rocprofv3 since ROCm 6.3) or {@code 4} (earlier). */
    private static long agentNumber(CsvRows rows, int column) throws BadField {
        String v = rows.get(column);
        if (v != null && v.startsWith("Agent ")) {
            try {
                return Integer.parseInt(v.substring("Agent ".length()).trim());
            } catch (NumberFormatException e) {
                throw new BadField("'" + v + "' is not an agent");
            }
        }
        long n = number(rows, column);
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new BadField("agent " + n + " is out of range");
        }
        return n;
    }

    /** The duration from start to end; -1 (the row is dropped and counted) when the times do not fit the store. */
    private long duration(long start, long end) {
        long dur = end - start;
        if (end < start) {
            out.anomaly("negative_durations", 1);
            dur = 0;
        }
        if (!TimeLimits.fits(0, start, dur)) {
            out.dropped++;
            out.anomaly("events_with_times_out_of_range_dropped", 1);
            return -1;
        }
        return dur;
    }

    private void bad(CsvRows rows, String why) {
        out.dropped++;
        out.anomaly("unreadable_rows", 1);
        if (!out.partial) {
            out.partial = true;
            out.partialReason = current.getFileName() + " line " + rows.line() + ": " + why + " (row skipped)";
        }
    }

    private int nameId(String name) {
        return names.computeIfAbsent(name == null ? "" : name, k -> names.size());
    }

    private void span(long ts, long dur) {
        firstTs = Math.min(firstTs, ts);
        lastTs = Math.max(lastTs, ts + dur);
        if (++sinceProgress == PROGRESS_EVERY) {
            eventsCounter.addAndGet(PROGRESS_EVERY);
            sinceProgress = 0;
        }
    }
}
