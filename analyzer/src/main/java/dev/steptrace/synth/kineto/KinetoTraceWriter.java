package dev.steptrace.synth.kineto;

import dev.steptrace.synth.model.Collective;
import dev.steptrace.synth.model.KernelSpec;
import dev.steptrace.synth.model.LaunchApi;
import dev.steptrace.synth.model.LaunchShape;
import dev.steptrace.synth.model.Phase;
import dev.steptrace.synth.model.RankStep;
import dev.steptrace.synth.model.Workload;
import dev.steptrace.synth.model.WorkloadConfig;
import java.io.Closeable;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Streams one rank's capture as a torch.profiler (Kineto) Chrome trace, in the layout
 * {@code ChromeTraceLogger} writes in 2025-2026 builds: a blank line, then pretty-printed header keys
 * ({@code schemaVersion}, {@code deviceProperties}, metadata, {@code displayTimeUnit},
 * {@code baseTimeNanoseconds}), {@code traceEvents} with one multi-line object per event, the
 * {@code M} metadata events, the {@code Trace} span, {@code Record Window End}, and
 * {@code traceName} last. Times are relative to {@code baseTimeNanoseconds} and printed as
 * {@code us.nnn}. The spacing inside events copies real files, odd runs of blanks included, so that a
 * reader tuned on synthetic input meets the bytes it will meet in the field.
 *
 * <p>Events are grouped per step: the step's cpu ops first, then runtime calls and GPU activities
 * interleaved as CUPTI delivers them (each with its {@code ac2g} flow), then the step's
 * {@code gpu_user_annotation}s. Kineto writes all cpu ops of a trace before all CUPTI activity;
 * per-step grouping is what lets a multi-gigabyte file stream with bounded memory, and readers must
 * accept any event order anyway.
 */
public final class KinetoTraceWriter implements Closeable {
    private static final String GPU_NAME = Workload.GPU_NAME;
    private static final int NUM_SMS = Workload.GPU_SMS;
    private static final int MAX_WARPS_PER_SM = 48;
    private static final int STREAM = Workload.COMPUTE_STREAM;
    /** Kineto writes process metadata for GPUs 0-15 whether or not they exist. */
    private static final int METADATA_GPUS = 16;

    private static final byte[] TS = bytes(",\n    \"ts\": ");
    private static final byte[] DUR = bytes(", \"dur\": ");
    private static final byte[] ARGS = bytes(",\n    \"args\": {\n");
    private static final byte[] EXTERNAL = bytes("      \"External id\": ");
    private static final byte[] AFTER_EXTERNAL = bytes(",      ");
    private static final byte[] NO_EXTERNAL = bytes("            ");
    private static final byte[] CLOSE = bytes("\n    }\n  },\n");
    private static final byte[] FLOW_S = bytes("  {\n    \"ph\": \"s\", \"id\": ");
    private static final byte[] FLOW_F = bytes("  {\n    \"ph\": \"f\", \"id\": ");
    private static final byte[] FLOW_S_TAIL = bytes(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n");
    private static final byte[] FLOW_F_TAIL = bytes(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },\n");
    private static final byte[] CALL_MID = bytes(", \"correlation\": ");
    private static final byte[] RECORD_FUNCTION = bytes(",\"Record function id\": 0, ");
    private static final byte[] EV_IDX = bytes("\"Ev Idx\": ");
    private static final byte[] OP_CLOSE = bytes("\n    }\n  },\n");
    private static final byte[] GRAPH_ID = bytes(", \"graph id\": ");
    private static final byte[] GRAPH_NODE_ID = bytes(", \"graph node id\": ");
    private static final byte[] SEQ = bytes(", \"Seq\": ");
    private static final byte[] COMMS_ID = bytes(", \"Comms Id\": ");
    private static final byte[] BANDWIDTH = bytes(", \"memory bandwidth (GB/s)\": ");

    private final JsonSink out;
    private final Workload workload;
    private final WorkloadConfig config;
    private final int rank;
    private final int device;
    private final long pid;
    private final String traceName;

    /** Per stream the kernel uses ({@link Workload#stream}). */
    private final Map<Integer, byte[]> flowGpuTails = new java.util.HashMap<>();
    private final byte[] flowCpuTail;
    private final Map<Integer, byte[]> kernelMids = new java.util.HashMap<>();
    private final byte[] memcpyMid;
    private final byte[] processGroupRanks;
    private final Map<KernelSpec, byte[][]> kernelBytes = new IdentityHashMap<>();
    /** {@link #kernelBytes} by template entry, so the hot path indexes an array instead of hashing. */
    private final Map<Phase, byte[][][]> entryBytes = new EnumMap<>(Phase.class);
    private final Map<String, byte[]> opHeads = new IdentityHashMap<>();
    private final Map<String, byte[]> annotationHeads = new IdentityHashMap<>();
    private final Map<String, byte[]> gpuAnnotationHeads = new IdentityHashMap<>();
    private final Map<LaunchApi, byte[]> callHeads = new EnumMap<>(LaunchApi.class);
    private final Map<LaunchApi, byte[]> callMids = new EnumMap<>(LaunchApi.class);

    private KinetoTraceWriter(JsonSink out, Workload workload, int rank) {
        this.out = out;
        this.workload = workload;
        this.config = workload.config();
        this.rank = rank;
        this.device = workload.device(rank);
        this.pid = workload.pid(rank);
        long h = Long.rotateLeft(config.seed() * 0x9E3779B97F4A7C15L + rank, 17) ^ 0x5851F42D4C957F2DL;
        this.traceName = "/tmp/tmp" + base36(h, 8) + ".json";
        for (int stream : workload.streams()) {
            flowGpuTails.put(stream, bytes(", \"pid\": " + device + ", \"tid\": " + stream + ", \"ts\": "));
            kernelMids.put(stream, bytes("\"queued\": 0, \"device\": " + device + ", \"context\": 1,      \"stream\": " + stream
                    + ", \"correlation\": "));
        }
        this.flowCpuTail = bytes(", \"pid\": " + pid + ", \"tid\": " + pid + ", \"ts\": ");
        this.memcpyMid = bytes("\"device\": " + device + ", \"context\": 1,      \"stream\": " + STREAM + ", \"correlation\": ");
        StringBuilder ranks = new StringBuilder("[");
        for (int r = 0; r < config.ranks(); r++) {
            ranks.append(r == 0 ? "" : ", ").append(r);
        }
        this.processGroupRanks = bytes(ranks.append(']').toString());
    }

    /** A writer to {@code file}, gzipped when asked. */
    public static KinetoTraceWriter open(Path file, boolean gzip, Workload workload, int rank) throws IOException {
        JsonSink sink;
        if (gzip) {
            GzipDrain drain = new GzipDrain(file);
            sink = new JsonSink(drain, drain.firstBuffer());
        } else {
            sink = new JsonSink(FileDrain.to(file), new byte[JsonSink.CHUNK]);
        }
        return new KinetoTraceWriter(sink, workload, rank);
    }

    /** A writer that only counts bytes, to learn how large a step is. */
    public static KinetoTraceWriter counting(Workload workload, int rank) {
        return new KinetoTraceWriter(new JsonSink(FileDrain.discarding(), new byte[JsonSink.CHUNK]), workload, rank);
    }

    /** vLLM's per-worker file name: {@code dp0_pp0_tp3_dcp0_ep0_rank3.<ns>.pt.trace.json[.gz]}. */
    public static String fileName(int rank, long epochNanos, boolean gzip) {
        return "dp0_pp0_tp" + rank + "_dcp0_ep0_rank" + rank + "." + epochNanos + ".pt.trace.json" + (gzip ? ".gz" : "");
    }

    /** Uncompressed JSON bytes written so far. */
    public long written() {
        return out.written();
    }

    public void header() throws IOException {
        StringBuilder b = new StringBuilder(4096);
        b.append("\n  {\n    \"schemaVersion\": 1,\n    \"deviceProperties\": [\n");
        for (int d = 0; d < Workload.GPUS_PER_NODE; d++) {
            b.append("    {\n      \"id\": ").append(d).append(", \"name\": \"").append(GPU_NAME)
                    .append("\", \"totalGlobalMem\": ").append(Workload.GPU_MEMORY_BYTES).append(",\n")
                    .append("      \"computeMajor\": 12, \"computeMinor\": 0,\n")
                    .append("      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 1536,\n")
                    .append("      \"regsPerBlock\": 65536, \"warpSize\": 32,\n")
                    .append("      \"sharedMemPerBlock\": 49152, \"numSms\": ").append(NUM_SMS).append('\n')
                    .append("    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 101376,")
                    .append(" \"sharedMemPerMultiprocessor\": 102400\n")
                    .append(d == Workload.GPUS_PER_NODE - 1 ? "    }\n" : "    },\n");
        }
        b.append("    ],\n");
        b.append("      \"trace_id\": \"").append(traceId()).append("\",\n");
        b.append("      \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ").append(rank)
                .append(", \"world_size\": ").append(config.ranks())
                .append(", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\",")
                .append(" \"backend_config\": \"cuda:nccl\", \"pg_size\": ").append(config.ranks())
                .append(", \"ranks\": ").append(new String(processGroupRanks, StandardCharsets.US_ASCII))
                .append("}], \"nccl_version\": \"2.28.9\"},\n");
        b.append("      \"cuda_driver_version\": 13000,\n");
        b.append("      \"cuda_runtime_version\": 13000,\n");
        b.append("      \"cupti_version\": 130001,\n");
        b.append("  \"displayTimeUnit\": \"ms\",\n");
        b.append("  \"baseTimeNanoseconds\": ").append(Workload.BASE_TIME_NS).append(",\n");
        b.append("  \"traceEvents\": [\n");
        out.ascii(b.toString());
    }

    /** Writes one step (its host ops, calls, GPU activities and GPU annotations). */
    public void step(RankStep s) throws IOException {
        long elements = s.template().allReduceElements();
        for (int i = 0; i < s.hostCount(); i++) {
            hostOp(s.host(i), elements);
        }
        int call = 0;
        int gpu = s.gpuCount();
        byte[][][] parts = entryBytes.computeIfAbsent(s.phase(), p -> new byte[s.template().entries().size()][][]);
        for (int i = 0; i < gpu; i++) {
            RankStep.GpuOp g = s.gpu(i);
            if (parts[g.index] == null) {
                parts[g.index] = kernelBytes.computeIfAbsent(g.entry.spec(), this::kernelParts);
            }
            gpuOp(g, parts[g.index], s.graphId(), elements);
            boolean lastOfCorrelation = i + 1 == gpu || s.gpu(i + 1).correlation != g.correlation;
            while (lastOfCorrelation && call < s.callCount() && s.call(call).correlation <= g.correlation) {
                call(s.call(call++));
            }
        }
        while (call < s.callCount()) {
            call(s.call(call++));
        }
        for (int i = 0; i < s.annotationCount(); i++) {
            gpuAnnotation(s.annotation(i));
        }
    }

    /**
     * Ends the document: process and thread metadata, the profiler span, the record-window marker and
     * {@code traceName}.
     *
     * @param profilerStart when the profiler started (this rank's clock)
     * @param lastHostEnd   end of the last step annotation
     */
    public void finish(long profilerStart, long lastHostEnd) throws IOException {
        long metaTs = profilerStart + 124_969;
        metadata("process_name", metaTs, pid, 0, "\"name\": \"python3\"");
        metadata("process_labels", metaTs, pid, 0, "\"labels\": \"CPU\"");
        metadata("process_sort_index", metaTs, pid, 0, "\"sort_index\": " + pid);
        for (int gpu = 0; gpu < METADATA_GPUS; gpu++) {
            metadata("process_name", metaTs, gpu, 0, "\"name\": \"python3\"");
            metadata("process_labels", metaTs, gpu, 0, "\"labels\": \"GPU " + gpu + "\"");
            metadata("process_sort_index", metaTs, gpu, 0, "\"sort_index\": " + (5_000_000 + gpu));
        }
        for (int stream : workload.streams()) {
            metadata("thread_name", metaTs, device, stream, "\"name\": \"stream " + stream + " \"");
            metadata("thread_sort_index", metaTs, device, stream, "\"sort_index\": " + stream);
        }
        metadata("thread_name", metaTs, pid, pid, "\"name\": \"thread " + pid + " (python3)\"");
        metadata("thread_sort_index", metaTs, pid, pid, "\"sort_index\": " + pid);

        long spanEnd = lastHostEnd + 47_311;
        out.ascii("  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
        out.micros(profilerStart);
        out.raw(DUR);
        out.micros(spanEnd - profilerStart);
        out.ascii(",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n"
                + "    \"args\": {\n      \"Op count\": 0\n    }\n  },\n");
        out.ascii("  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ");
        out.micros(profilerStart);
        out.ascii(",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912\n    }\n  },\n");
        out.ascii("  {\n    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
                + "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
        out.micros(profilerStart);
        out.ascii("\n  },\n  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
                + "    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
        out.micros(spanEnd + 959_247);
        out.ascii("\n  }\n  ],\n  \"traceName\": \"" + traceName + "\"\n}\n");
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    private void hostOp(RankStep.HostOp h, long nelems) throws IOException {
        boolean annotation = h.kind == RankStep.HostKind.USER_ANNOTATION;
        Map<String, byte[]> heads = annotation ? annotationHeads : opHeads;
        byte[] head = heads.get(h.name);
        if (head == null) {
            head = bytes("  {\n    \"ph\": \"X\", \"cat\": \"" + (annotation ? "user_annotation" : "cpu_op") + "\", \"name\": \""
                    + new String(JsonSink.escape(h.name), StandardCharsets.UTF_8) + "\", \"pid\": " + pid + ", \"tid\": " + pid);
            heads.put(h.name, head);
        }
        out.raw(head);
        out.raw(TS);
        out.micros(h.start);
        out.raw(DUR);
        out.micros(h.dur);
        out.raw(ARGS);
        out.raw(EXTERNAL);
        out.num(h.externalId);
        out.raw(RECORD_FUNCTION);
        if (h.kind == RankStep.HostKind.RECORD_PARAM_COMMS) {
            out.ascii("\"Collective name\": \"allreduce\", \"Process Group Description\": \"default_pg\", \"dtype\": \"BFloat16\","
                    + " \"Rank\": " + rank + ", \"Out msg nelems\": " + nelems + ", \"Process Group Name\": \"0\","
                    + " \"Global rank stride\": 1, \"Out split size\": \"[]\", \"In split size\": \"[]\", \"Process Group Ranks\": \"");
            out.raw(processGroupRanks);
            out.ascii("\", \"Group size\": " + config.ranks() + ", \"Global rank start\": 0, \"Seq\": ");
            out.num(h.seq);
            out.raw(COMMS_ID);
            out.unsigned(h.commsId);
            out.ascii(", \"In msg nelems\": " + nelems + ", ");
        }
        out.raw(EV_IDX);
        out.num(h.evIdx);
        out.raw(OP_CLOSE);
    }

    private void call(RankStep.ApiCall c) throws IOException {
        byte[] head = callHeads.get(c.api);
        if (head == null) {
            head = bytes("  {\n    \"ph\": \"X\", \"cat\": \"" + (c.api.driver() ? "cuda_driver" : "cuda_runtime") + "\", \"name\": \""
                    + c.api.function() + "\", \"pid\": " + pid + ", \"tid\": " + pid);
            callHeads.put(c.api, head);
            callMids.put(c.api, bytes("\"cbid\": " + c.api.cbid()));
        }
        out.raw(head);
        out.raw(TS);
        out.micros(c.start);
        out.raw(DUR);
        out.micros(c.dur);
        out.raw(ARGS);
        if (c.externalId != 0) {
            out.raw(EXTERNAL);
            out.num(c.externalId);
            out.raw(AFTER_EXTERNAL);
        } else {
            out.raw(NO_EXTERNAL);
        }
        out.raw(callMids.get(c.api));
        out.raw(CALL_MID);
        out.num(c.correlation);
        out.raw(CLOSE);
        flow(FLOW_S, c.correlation, flowCpuTail, c.start, FLOW_S_TAIL);
    }

    private void gpuOp(RankStep.GpuOp g, byte[][] parts, long graphId, long nelems) throws IOException {
        KernelSpec spec = g.entry.spec();
        out.raw(parts[0]);
        out.raw(TS);
        out.micros(g.start);
        out.raw(DUR);
        out.micros(g.dur);
        out.raw(ARGS);
        if (g.externalId != 0) {
            out.raw(EXTERNAL);
            out.num(g.externalId);
            out.raw(AFTER_EXTERNAL);
        } else {
            out.raw(NO_EXTERNAL);
        }
        int stream = workload.stream(spec);
        out.raw(spec.isMemcpy() ? memcpyMid : kernelMids.get(stream));
        out.num(g.correlation);
        out.raw(parts[1]);
        if (spec.isMemcpy()) {
            out.raw(BANDWIDTH);
            out.ascii(plain((double) spec.memcpyBytes() / g.dur));
        }
        if (g.graphNodeId >= 0) {
            out.raw(GRAPH_ID);
            out.num(graphId);
            out.raw(GRAPH_NODE_ID);
            out.num(g.graphNodeId);
        }
        if (spec.collective() == Collective.NCCL_ALLREDUCE && g.seq >= 0) {
            out.ascii(", \"Collective name\": \"allreduce\", \"In msg nelems\": " + nelems + ", \"Out msg nelems\": " + nelems
                    + ", \"Group size\": " + config.ranks() + ", \"dtype\": \"BFloat16\", \"In split size\": \"[]\","
                    + " \"Out split size\": \"[]\", \"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\","
                    + " \"Process Group Ranks\": \"");
            out.raw(processGroupRanks);
            out.ascii("\"");
            out.raw(SEQ);
            out.num(g.seq);
            out.raw(COMMS_ID);
            out.unsigned(g.commsId);
        }
        out.raw(CLOSE);
        flow(FLOW_F, g.correlation, flowGpuTails.get(stream), g.start, FLOW_F_TAIL);
    }

    private void gpuAnnotation(RankStep.GpuAnnotation a) throws IOException {
        byte[] head = gpuAnnotationHeads.computeIfAbsent(a.name, name -> bytes("  {\n    \"ph\": \"X\", \"cat\": \"gpu_user_annotation\","
                + " \"name\": \"" + new String(JsonSink.escape(name), StandardCharsets.UTF_8) + "\", \"pid\": " + device
                + ", \"tid\": " + STREAM));
        out.raw(head);
        out.raw(TS);
        out.micros(a.start);
        out.raw(DUR);
        out.micros(a.dur);
        out.raw(ARGS);
        out.raw(EXTERNAL);
        out.num(a.externalId);
        out.raw(CLOSE);
    }

    private void flow(byte[] head, long id, byte[] where, long ts, byte[] tail) throws IOException {
        out.raw(head);
        out.num(id);
        out.raw(where);
        out.micros(ts);
        out.raw(tail);
    }

    private void metadata(String name, long ts, long pidValue, long tid, String args) throws IOException {
        out.ascii("  {\n    \"name\": \"" + name + "\", \"ph\": \"M\", \"ts\": ");
        out.micros(ts);
        out.ascii(", \"pid\": " + pidValue + ", \"tid\": " + tid + ",\n    \"args\": {\n      " + args + "\n    }\n  },\n");
    }

    /** The constant text before {@code ts} and after {@code correlation} of one kernel or memcpy. */
    private byte[][] kernelParts(KernelSpec spec) {
        String head = "  {\n    \"ph\": \"X\", \"cat\": \"" + (spec.isMemcpy() ? "gpu_memcpy" : "kernel") + "\", \"name\": \""
                + new String(JsonSink.escape(spec.name()), StandardCharsets.UTF_8) + "\", \"pid\": " + device + ", \"tid\": "
                + workload.stream(spec);
        String tail;
        if (spec.isMemcpy()) {
            tail = ",      \"bytes\": " + spec.memcpyBytes();
        } else {
            LaunchShape s = spec.shape();
            double blocksPerSm = (double) s.blocks() / NUM_SMS;
            double warpsPerSm = blocksPerSm * ((s.threadsPerBlock() + 31) / 32);
            long occupancy = Math.min(100, Math.round(Math.min(warpsPerSm, MAX_WARPS_PER_SM) * 100.0 / MAX_WARPS_PER_SM));
            tail = String.format(Locale.ROOT, ",      \"registers per thread\": %d,      \"shared memory\": %d,"
                            + "      \"blocks per SM\": %.6f,      \"warps per SM\": %.6f,      \"grid\": [%d, %d, %d],"
                            + "      \"block\": [%d, %d, %d],      \"est. achieved occupancy %%\": %d",
                    s.registersPerThread(), s.sharedMemory(), blocksPerSm, warpsPerSm, s.gridX(), s.gridY(), s.gridZ(),
                    s.blockX(), s.blockY(), s.blockZ(), occupancy);
        }
        return new byte[][] {bytes(head), bytes(tail)};
    }

    private String traceId() {
        long a = config.seed() * 0x9E3779B97F4A7C15L + rank;
        long b = Long.rotateLeft(a, 29) * 0xBF58476D1CE4E5B9L;
        return String.format(Locale.ROOT, "%016X%016X", a ^ (a >>> 31), b ^ (b >>> 27));
    }

    /** A double the way fmt prints it for Kineto: shortest round-trip digits, never an exponent. */
    private static String plain(double v) {
        return new BigDecimal(Double.toString(v)).toPlainString();
    }

    private static String base36(long v, int length) {
        String s = Long.toUnsignedString(v, 36);
        return s.length() >= length ? s.substring(0, length) : "0".repeat(length - s.length()) + s;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
