package dev.steptrace.timeline;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.steptrace.analysis.CaptureAnalysis;
import dev.steptrace.analysis.CaptureScope;
import dev.steptrace.common.Messages;
import dev.steptrace.report.ReportCategories;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes the timeline of a few steps of every rank as one Chrome trace JSON file (docs/timeline.md):
 * one process per rank, a track with each step's own slice and its analysed numbers, one thread per
 * GPU stream with the step's GPU operations (named {@code category: short name}, coloured by
 * category), collectives split into their wait and transfer parts with flow arrows joining the
 * instances of one collective across ranks, and the CPU threads' step annotations and runtime calls.
 * Everything is read from the capture's analysis and the store, never from the trace files, so the file
 * is as small as the steps it shows whatever the size of the traces.
 */
public final class Timeline {
    public static final String SCHEMA = "steptrace.timeline/1";
    /** The track of the step slices in each rank's process. */
    private static final int STEP_TID = 1;
    /** Categories of the file's events: the GPU and CPU ones are Kineto's, so steptrace reads the file back. */
    private static final Map<String, String> KINETO_CATEGORY = Map.of(
            "kernel", "kernel", "memcpy", "gpu_memcpy", "memset", "gpu_memset",
            "runtime", "cuda_runtime", "driver", "cuda_driver", "annotation", "user_annotation");

    private final Connection c;
    private final CaptureScope scope;
    private final String stepSource;
    private final ClockAlignment alignment;
    private final StepChoice choice;
    private final Map<Integer, Process> processes = new LinkedHashMap<>();
    private long origin;

    /** A rank's process in the file: pid, and the threads given out so far. */
    private static final class Process {
        final int pid;
        final int rank;
        final String host;
        final Map<Long, Integer> streams = new TreeMap<>();
        /** Written tid by the trace's "pid/tid". */
        final Map<String, Integer> cpuThreads = new LinkedHashMap<>();
        final Map<String, String> cpuThreadNames = new HashMap<>();
        final Map<Integer, Long> devices = new HashMap<>();
        int nextTid = STEP_TID + 1;

        Process(int pid, int rank, String host) {
            this.pid = pid;
            this.rank = rank;
            this.host = host;
        }
    }

    /** A collective kernel's place in the file, for the flow joining its instance across ranks. */
    private record Arrival(int pid, int tid, long tsNs, long durNs) {}

    private Timeline(Connection c, CaptureScope scope, String stepSource, StepChoice choice, ClockAlignment alignment) {
        this.c = c;
        this.scope = scope;
        this.stepSource = stepSource;
        this.choice = choice;
        this.alignment = alignment;
    }

    /**
     * Writes the chosen steps' timeline into {@code dir} (gzip unless the name ends in {@code .json}),
     * replacing the file only once it is complete.
     *
     * @param fileName the file's name, or null for {@link #defaultFileName}
     * @throws IllegalArgumentException when the options name a phase, step or rank the capture does not
     *                                  have (the message says what it has)
     */
    public static TimelineResult write(CaptureAnalysis analysis, TimelineOptions options, Path dir, String fileName,
                                       String version) throws SQLException, IOException {
        Connection c = analysis.connection();
        CaptureScope scope = analysis.scope();
        StepChoice choice = StepChoice.choose(c, options.phase(), options.steps(), options.neighbours());
        List<Integer> ranks = ranks(scope, options.ranks());
        Map<Integer, String> hosts = hosts(c, scope.captureId());
        ClockAlignment alignment = options.alignment() == TimelineOptions.Alignment.NONE
                ? ClockAlignment.none(ranks, hosts, null)
                : ClockAlignment.fromCollectives(c, choice.phase(), choice.steps(), ranks, hosts);
        Timeline t = new Timeline(c, scope, analysis.stepSource().id(), choice, alignment);
        for (int i = 0; i < ranks.size(); i++) {
            t.processes.put(ranks.get(i), new Process(i + 1, ranks.get(i), hosts.get(ranks.get(i))));
        }
        Path file = dir.resolve(fileName != null ? fileName : defaultFileName(choice.phase(), choice.steps()));
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        long events;
        try {
            try (OutputStream out = Files.newOutputStream(tmp)) {
                events = t.writeTo(out, !file.getFileName().toString().endsWith(".json"), version);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return new TimelineResult(file, choice.phase(), choice.steps(), choice.slowest(), choice.slowestSpanNs(),
                choice.slowestRank(), ranks, alignment, events, Files.size(file));
    }

    /** {@code timeline-decode-36-38.json.gz}: the phase and the steps. */
    public static String defaultFileName(String phase, List<Integer> steps) {
        return "timeline-" + phase + "-" + Messages.ranges(steps).replace(", ", "_") + ".json.gz";
    }

    private static List<Integer> ranks(CaptureScope scope, List<Integer> requested) {
        List<Integer> all = scope.ranks();
        if (requested.isEmpty()) {
            return all;
        }
        List<Integer> chosen = new ArrayList<>();
        for (int r : new TreeSet<>(requested)) {
            if (!all.contains(r)) {
                throw new IllegalArgumentException("no rank " + r + " in the capture (its ranks: "
                        + Messages.ranges(all) + ")");
            }
            chosen.add(r);
        }
        return chosen;
    }

    private static Map<Integer, String> hosts(Connection c, int captureId) throws SQLException {
        Map<Integer, String> hosts = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT rank, host_name FROM files WHERE capture_id = ? AND rank IS NOT NULL AND host_name IS NOT NULL")) {
            ps.setInt(1, captureId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    hosts.put(rs.getInt(1), rs.getString(2));
                }
            }
        }
        return hosts;
    }

    private long writeTo(OutputStream out, boolean gzip, String version) throws SQLException, IOException {
        chooseSteps();
        List<StepRow> steps = stepRows();
        origin = Long.MAX_VALUE;
        for (StepRow s : steps) {
            long start = s.gpuStart == null ? s.cpuStart : Math.min(s.cpuStart, s.gpuStart);
            origin = Math.min(origin, start - alignment.offset(s.rank));
        }
        if (origin == Long.MAX_VALUE) {
            origin = 0;
        }
        try (ChromeTraceWriter w = new ChromeTraceWriter(out, gzip)) {
            // steptrace's own reader adds this back: a file read back holds the aligned epoch times.
            w.json().writeNumberField("baseTimeNanoseconds", origin);
            metadata(w.json(), version);
            w.startEvents();
            for (StepRow s : steps) {
                stepSlice(w, s);
            }
            Map<List<Object>, List<Arrival>> instances = gpuOps(w);
            cpuEvents(w);
            flows(w, instances);
            names(w);
            return w.events();
        }
    }

    /** The written steps of the written ranks, as a temp table the queries below join. */
    private void chooseSteps() throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                CREATE OR REPLACE TEMP TABLE t_timeline_steps AS
                SELECT m.file_id, m.rank, m.step, m.phase_index, s.cpu_start, s.cpu_end
                FROM t_step_metrics m JOIN t_steps s USING (file_id, step)
                WHERE m.phase = ? AND m.phase_index IN (SELECT unnest(string_split(?, ','))::INTEGER)
                  AND m.rank IN (SELECT unnest(string_split(?, ','))::INTEGER)
                """)) {
            ps.setString(1, choice.phase());
            ps.setString(2, join(choice.steps()));
            ps.setString(3, join(new ArrayList<>(processes.keySet())));
            ps.execute();
        }
    }

    private static String join(List<Integer> values) {
        return String.join(",", values.stream().map(String::valueOf).toList());
    }

    /** A step of one rank with its analysed numbers. */
    private record StepRow(int rank, int step, int phaseIndex, String name, Long stepNumber, long cpuStart, long cpuEnd,
                           Long gpuStart, Long gpuEnd, long kernelNs, long calls, Long spanNs, Long busyNs, Long idleNs,
                           Long hostGapNs, Map<String, Long> categoryNs) {}

    private List<StepRow> stepRows() throws SQLException {
        Map<List<Integer>, Map<String, Long>> categories = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT c.file_id, c.step, c.category, sum(c.ns)::BIGINT AS ns
                FROM t_step_categories c JOIN t_timeline_steps USING (file_id, step)
                GROUP BY ALL ORDER BY c.file_id, c.step, ns DESC, c.category
                """)) {
            while (rs.next()) {
                categories.computeIfAbsent(List.of(rs.getInt(1), rs.getInt(2)), k -> new LinkedHashMap<>())
                        .put(rs.getString(3), rs.getLong(4));
            }
        }
        List<StepRow> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT m.file_id, m.rank, m.step, m.phase_index, m.name, st.step_number, t.cpu_start, t.cpu_end,
                       m.gpu_start, m.gpu_end, m.kernel_ns, m.calls, m.span_ns, m.busy_ns, m.idle_ns, m.host_gap_ns
                FROM t_step_metrics m JOIN t_timeline_steps t USING (file_id, step)
                JOIN t_steps st USING (file_id, step)
                ORDER BY m.rank, m.step
                """)) {
            while (rs.next()) {
                rows.add(new StepRow(rs.getInt(2), rs.getInt(3), rs.getInt(4), rs.getString(5),
                        (Long) rs.getObject(6), rs.getLong(7), rs.getLong(8), (Long) rs.getObject(9),
                        (Long) rs.getObject(10), rs.getLong(11), rs.getLong(12), (Long) rs.getObject(13),
                        (Long) rs.getObject(14), (Long) rs.getObject(15), (Long) rs.getObject(16),
                        categories.getOrDefault(List.of(rs.getInt(1), rs.getInt(3)), Map.of())));
            }
        }
        return rows;
    }

    /** The file's time of a rank's store time: aligned, from the origin. */
    private long time(int rank, long ns) {
        return ns - alignment.offset(rank) - origin;
    }

    private void metadata(JsonGenerator j, String version) throws IOException {
        j.writeObjectFieldStart("steptrace");
        j.writeStringField("schema", SCHEMA);
        j.writeObjectFieldStart("tool");
        j.writeStringField("name", "steptrace");
        j.writeStringField("version", version);
        j.writeEndObject();
        j.writeObjectFieldStart("capture");
        j.writeStringField("name", scope.name());
        j.writeStringField("path", scope.path().toString());
        j.writeEndObject();
        j.writeStringField("step_source", stepSource);
        j.writeStringField("phase", choice.phase());
        writeInts(j, "steps", choice.steps());
        j.writeNumberField("slowest_step", choice.slowest());
        j.writeNumberField("time_origin_ns", origin);
        j.writeArrayFieldStart("processes");
        for (Process p : processes.values()) {
            j.writeStartObject();
            j.writeNumberField("pid", p.pid);
            j.writeNumberField("rank", p.rank);
            j.writeEndObject();
        }
        j.writeEndArray();
        j.writeObjectFieldStart("alignment");
        j.writeStringField("method", alignment.method());
        if (alignment.referenceRank() != null) {
            j.writeNumberField("reference_rank", alignment.referenceRank());
        }
        j.writeNumberField("bound_ns", alignment.boundNs());
        if (alignment.note() != null) {
            j.writeStringField("note", alignment.note());
        }
        j.writeArrayFieldStart("ranks");
        for (ClockAlignment.RankOffset o : alignment.ranks()) {
            j.writeStartObject();
            j.writeNumberField("rank", o.rank());
            j.writeNumberField("offset_ns", o.offsetNs());
            j.writeNumberField("instances", o.instances());
            j.writeNumberField("spread_ns", o.spreadNs());
            if (o.host() != null) {
                j.writeStringField("host", o.host());
            }
            j.writeEndObject();
        }
        j.writeEndArray();
        j.writeArrayFieldStart("warnings");
        for (String warning : alignment.warnings()) {
            j.writeString(warning);
        }
        j.writeEndArray();
        j.writeEndObject();
        j.writeEndObject();
    }

    private static void writeInts(JsonGenerator j, String field, List<Integer> values) throws IOException {
        j.writeArrayFieldStart(field);
        for (int v : values) {
            j.writeNumber(v);
        }
        j.writeEndArray();
    }

    /** The step's own slice over its GPU time (its CPU range when it ran no GPU operation). */
    private void stepSlice(ChromeTraceWriter w, StepRow s) throws IOException {
        Process p = processes.get(s.rank);
        long start = s.gpuStart != null ? s.gpuStart : s.cpuStart;
        long end = s.gpuEnd != null ? s.gpuEnd : s.cpuEnd;
        w.complete(p.pid, STEP_TID, "step", choice.phase() + " step " + s.phaseIndex + " · " + s.name,
                time(s.rank, start), end - start, SliceColors.STEP);
        JsonGenerator a = w.args();
        a.writeNumberField("rank", s.rank);
        a.writeStringField("phase", choice.phase());
        a.writeNumberField("step", s.phaseIndex);
        a.writeStringField("name", s.name);
        if (s.stepNumber != null) {
            a.writeNumberField("step_number", s.stepNumber);
        }
        a.writeNumberField("kernel_ms", s.kernelNs / 1e6);
        a.writeNumberField("calls", s.calls);
        writeMs(a, "span_ms", s.spanNs);
        writeMs(a, "busy_ms", s.busyNs);
        writeMs(a, "idle_ms", s.idleNs);
        writeMs(a, "host_gap_ms", s.hostGapNs);
        a.writeObjectFieldStart("category_ms");
        for (Map.Entry<String, Long> e : s.categoryNs.entrySet()) {
            a.writeNumberField(e.getKey(), e.getValue() / 1e6);
        }
        a.writeEndObject();
        w.end();
    }

    private static void writeMs(JsonGenerator a, String field, Long ns) throws IOException {
        if (ns == null) {
            a.writeNullField(field);
        } else {
            a.writeNumberField(field, ns / 1e6);
        }
    }

    /**
     * The steps' GPU operations, stream by stream; returns the collective kernels by instance (phase
     * step, type, k) for the flows.
     */
    private Map<List<Object>, List<Arrival>> gpuOps(ChromeTraceWriter w) throws SQLException, IOException {
        Map<Long, String> names = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT DISTINCT o.file_id, o.name_id, n.name
                FROM t_ops_core o JOIN t_timeline_steps USING (file_id, step) JOIN names n USING (file_id, name_id)
                """)) {
            while (rs.next()) {
                names.put(key(rs.getInt(1), rs.getInt(2)), rs.getString(3));
            }
        }
        Map<Integer, Integer> rankOfFile = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT DISTINCT file_id, rank FROM t_timeline_steps")) {
            while (rs.next()) {
                rankOfFile.put(rs.getInt(1), rs.getInt(2));
            }
        }
        Map<List<Object>, List<Arrival>> instances = new LinkedHashMap<>();
        Map<String, String> labels = new HashMap<>();
        // Operation details (bytes, launch shape, device) are in gpu_ops, found by the operation's own
        // values within the steps' time range; collectives add their instance and wait/transfer split.
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                WITH ops AS (
                    SELECT o.*, t.phase_index FROM t_ops_core o JOIN t_timeline_steps t USING (file_id, step)
                ), g AS (
                    SELECT DISTINCT ON (file_id, kind, name_id, stream, ts_ns, dur_ns)
                           file_id, kind, name_id, stream, ts_ns, dur_ns, device, bytes,
                           grid_x, grid_y, grid_z, block_x, block_y, block_z
                    FROM gpu_ops
                    WHERE file_id IN (SELECT file_id FROM t_timeline_steps)
                      AND ts_ns BETWEEN (SELECT min(ts_ns) FROM ops) AND (SELECT max(ts_ns) FROM ops)
                ), col AS (
                    SELECT DISTINCT ON (file_id, step, ts_ns, dur_ns)
                           file_id, step, ts_ns, dur_ns, type, k, wait_ns, transfer_ns, msg_bytes, dtype
                    FROM t_collectives JOIN t_timeline_steps USING (file_id, step)
                )
                SELECT o.file_id, o.step, o.phase_index, o.kind::VARCHAR, o.name_id, o.stream, o.ts_ns, o.dur_ns,
                       o.correlation, o.external_id, k.category, k.subcategory, k.rule_id,
                       g.device, g.bytes, g.grid_x, g.grid_y, g.grid_z, g.block_x, g.block_y, g.block_z,
                       col.type, col.k, col.wait_ns, col.transfer_ns, col.msg_bytes, col.dtype
                FROM ops o
                JOIN t_classes k USING (file_id, name_id, kind, variant)
                LEFT JOIN g ON g.file_id = o.file_id AND g.kind = o.kind AND g.name_id = o.name_id
                     AND g.stream IS NOT DISTINCT FROM o.stream AND g.ts_ns = o.ts_ns AND g.dur_ns = o.dur_ns
                LEFT JOIN col ON k.category IN ('allreduce', 'comm_other') AND col.file_id = o.file_id
                     AND col.step = o.step AND col.ts_ns = o.ts_ns AND col.dur_ns = o.dur_ns
                ORDER BY o.file_id, o.stream NULLS FIRST, o.ts_ns, o.dur_ns DESC
                """)) {
            while (rs.next()) {
                int fileId = rs.getInt(1);
                int rank = rankOfFile.get(fileId);
                Process p = processes.get(rank);
                String kind = rs.getString(4);
                int nameId = rs.getInt(5);
                Long stream = (Long) rs.getObject(6);
                long ts = time(rank, rs.getLong(7));
                long dur = rs.getLong(8);
                String category = rs.getString(11);
                Integer device = (Integer) rs.getObject(14);
                int tid = p.streams.computeIfAbsent(stream == null ? -1 : stream, x -> p.nextTid++);
                if (device != null) {
                    p.devices.merge(device, 1L, Long::sum);
                }
                String full = names.get(key(fileId, nameId));
                String label = labels.computeIfAbsent(fileId + "/" + nameId + "/" + kind,
                        x -> category + ": " + ("kernel".equals(kind) ? ShortName.of(full) : full));
                w.complete(p.pid, tid, KINETO_CATEGORY.get(kind), label, ts, dur, SliceColors.category(category));
                JsonGenerator a = w.args();
                a.writeStringField("kernel", full);
                a.writeStringField("category", category);
                a.writeStringField("category_label", ReportCategories.label(category, null));
                a.writeStringField("subcategory", rs.getString(12));
                a.writeStringField("rule", rs.getString(13));
                a.writeNumberField("step", rs.getInt(3));
                a.writeFieldName("duration_us");
                a.writeNumber(ChromeTraceWriter.micros(dur));
                if (stream != null) {
                    a.writeNumberField("stream", stream);
                }
                writeLong(a, "correlation", rs.getObject(9));
                writeLong(a, "External id", rs.getObject(10));
                writeLong(a, "bytes", rs.getObject(15));
                writeTriple(a, "grid", rs, 16);
                writeTriple(a, "block", rs, 19);
                String type = rs.getString(22);
                Long wait = (Long) rs.getObject(24);
                Long transfer = (Long) rs.getObject(25);
                if (type != null) {
                    a.writeStringField("collective", type);
                    a.writeNumberField("instance", rs.getInt(23));
                    writeLong(a, "msg_bytes", rs.getObject(26));
                    if (rs.getString(27) != null) {
                        a.writeStringField("dtype", rs.getString(27));
                    }
                    if (wait != null) {
                        a.writeFieldName("wait_us");
                        a.writeNumber(ChromeTraceWriter.micros(wait));
                        a.writeFieldName("transfer_us");
                        a.writeNumber(ChromeTraceWriter.micros(transfer));
                    }
                    instances.computeIfAbsent(List.of(rs.getInt(3), type, rs.getInt(23)), x -> new ArrayList<>())
                            .add(new Arrival(p.pid, tid, ts, dur));
                }
                w.end();
                if (type != null && wait != null) {
                    collectiveParts(w, p.pid, tid, type, ts, dur, wait);
                }
            }
        }
        return instances;
    }

    /** The wait and transfer parts of a collective kernel, as slices inside it. */
    private static void collectiveParts(ChromeTraceWriter w, int pid, int tid, String type, long ts, long dur, long wait)
            throws IOException {
        long waitPart = Math.min(Math.max(wait, 0), dur);
        if (waitPart > 0) {
            w.complete(pid, tid, "collective", "wait", ts, waitPart, SliceColors.WAIT);
            w.args().writeStringField("collective", type);
            w.end();
        }
        if (dur - waitPart > 0) {
            w.complete(pid, tid, "collective", "transfer", ts + waitPart, dur - waitPart, SliceColors.TRANSFER);
            w.args().writeStringField("collective", type);
            w.end();
        }
    }

    private static long key(int fileId, int nameId) {
        return ((long) fileId << 32) | (nameId & 0xffffffffL);
    }

    private static void writeLong(JsonGenerator a, String field, Object value) throws IOException {
        if (value != null) {
            a.writeNumberField(field, ((Number) value).longValue());
        }
    }

    /** An argument of the open event, when there is a value ({@code args} opened with the first). */
    private static void writeLong(ChromeTraceWriter w, String field, Object value) throws IOException {
        if (value != null) {
            w.args().writeNumberField(field, ((Number) value).longValue());
        }
    }

    private static void writeTriple(JsonGenerator a, String field, ResultSet rs, int first) throws SQLException, IOException {
        if (rs.getObject(first) == null) {
            return;
        }
        a.writeArrayFieldStart(field);
        for (int i = 0; i < 3; i++) {
            a.writeNumber(rs.getInt(first + i));
        }
        a.writeEndArray();
    }

    /** The steps' CPU side: annotations (the step's own among them) and runtime and driver calls. */
    private void cpuEvents(ChromeTraceWriter w) throws SQLException, IOException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT DISTINCT t.rank, k.pid, k.tid, k.name
                FROM tracks k JOIN t_timeline_steps t USING (file_id)
                WHERE k.tid IS NOT NULL AND k.name IS NOT NULL
                """)) {
            while (rs.next()) {
                processes.get(rs.getInt(1)).cpuThreadNames.put(rs.getLong(2) + "/" + rs.getLong(3), rs.getString(4));
            }
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT t.rank, l.kind::VARCHAR, n.name, l.pid, l.tid, l.ts_ns, l.dur_ns, l.correlation, l.external_id,
                       l.cbid
                FROM launches l JOIN t_timeline_steps t ON l.file_id = t.file_id
                     AND l.ts_ns >= t.cpu_start AND l.ts_ns < t.cpu_end
                JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id
                UNION ALL
                SELECT t.rank, 'annotation', a.name, a.pid, a.tid, a.ts_ns, a.end_ns - a.ts_ns, NULL, NULL, NULL
                FROM t_annot a JOIN t_timeline_steps t ON a.file_id = t.file_id
                     AND a.ts_ns >= t.cpu_start AND a.ts_ns < t.cpu_end
                ORDER BY 1, 4, 5, 6, 7 DESC
                """)) {
            while (rs.next()) {
                int rank = rs.getInt(1);
                Process p = processes.get(rank);
                String thread = rs.getLong(4) + "/" + rs.getLong(5);
                Integer tid = p.cpuThreads.get(thread);
                if (tid == null) {
                    tid = p.nextTid++;
                    p.cpuThreads.put(thread, tid);
                }
                w.complete(p.pid, tid, KINETO_CATEGORY.get(rs.getString(2)), rs.getString(3),
                        time(rank, rs.getLong(6)), rs.getLong(7), null);
                writeLong(w, "correlation", rs.getObject(8));
                writeLong(w, "External id", rs.getObject(9));
                writeLong(w, "cbid", rs.getObject(10));
                w.end();
            }
        }
    }

    /**
     * One flow per collective instance: from the rank whose kernel started first to the one that
     * started last, through the others in start order. Each point sits 1 ns into its kernel, so it is
     * inside the slice it binds to.
     */
    private static void flows(ChromeTraceWriter w, Map<List<Object>, List<Arrival>> instances) throws IOException {
        long id = 0;
        for (Map.Entry<List<Object>, List<Arrival>> e : instances.entrySet()) {
            List<Arrival> arrivals = new ArrayList<>(e.getValue());
            if (arrivals.size() < 2) {
                continue;
            }
            arrivals.sort((x, y) -> x.tsNs() != y.tsNs() ? Long.compare(x.tsNs(), y.tsNs()) : Integer.compare(x.pid(), y.pid()));
            id++;
            String name = (String) e.getKey().get(1);
            for (int i = 0; i < arrivals.size(); i++) {
                Arrival a = arrivals.get(i);
                char phase = i == 0 ? 's' : i == arrivals.size() - 1 ? 'f' : 't';
                w.flow(phase, a.pid(), a.tid(), "collective", name, id, a.tsNs() + Math.min(1, a.durNs()));
            }
        }
    }

    /** Process and thread names, and their order: the step track, then streams, then CPU threads. */
    private void names(ChromeTraceWriter w) throws SQLException, IOException {
        Map<Integer, Map<Integer, String>> deviceNames = deviceNames();
        for (Process p : processes.values()) {
            Integer device = p.devices.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                    .orElse(null);
            String gpu = device == null ? null : deviceNames.getOrDefault(p.rank, Map.of()).get(device);
            w.processName(p.pid, "rank " + p.rank + (gpu != null ? " · " + gpu : device != null ? " · GPU " + device : "")
                    + (p.host != null ? " · " + p.host : ""), p.rank);
            w.threadName(p.pid, STEP_TID, "steps", 0);
            for (Map.Entry<Long, Integer> s : p.streams.entrySet()) {
                w.threadName(p.pid, s.getValue(), (device != null ? "GPU " + device + " · " : "")
                        + (s.getKey() < 0 ? "stream ?" : "stream " + s.getKey()), s.getValue());
            }
            for (Map.Entry<String, Integer> t : p.cpuThreads.entrySet()) {
                w.threadName(p.pid, t.getValue(), "CPU · " + p.cpuThreadNames.getOrDefault(t.getKey(),
                        "thread " + t.getKey().substring(t.getKey().indexOf('/') + 1)), t.getValue());
            }
        }
    }

    /** Device names by rank and device, from the traces' {@code deviceProperties}. */
    private Map<Integer, Map<Integer, String>> deviceNames() throws SQLException {
        Map<Integer, Map<Integer, String>> out = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT DISTINCT t.rank, d.device_id, d.name
                FROM devices d JOIN (SELECT DISTINCT file_id, rank FROM t_timeline_steps) t USING (file_id)
                WHERE d.name IS NOT NULL
                """)) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getInt(1), r -> new HashMap<>()).put(rs.getInt(2), rs.getString(3));
            }
        }
        return out;
    }
}
