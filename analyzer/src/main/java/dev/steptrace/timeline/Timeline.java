package dev.steptrace.timeline;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.steptrace.store.CaptureScope;
import dev.steptrace.analysis.HostSyncCalls;
import dev.steptrace.analysis.StoredAnalysis;
import dev.steptrace.quality.ClockOffsets;
import dev.steptrace.common.Messages;
import dev.steptrace.common.OutputFiles;
import dev.steptrace.common.StepSource;
import dev.steptrace.report.ReportCategories;
import dev.steptrace.whatif.CriticalPaths;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import java.util.function.Function;

/**
 * Writes the timeline of a few steps of every rank as one Chrome trace JSON file (docs/timeline.md):
 * one process per rank, a track with each step's own slice and its analysed numbers, one thread per
 * GPU stream with the step's GPU operations (named {@code category: short name}, coloured by
 * category), collectives split into their wait and transfer parts with flow arrows joining the
 * instances of one collective across ranks, and the CPU threads' step annotations and runtime calls.
 * Everything is read from the capture's analysis as the store keeps it and from the store's events,
 * never from the trace files, so the file is as small as the steps it shows whatever the size of the
 * traces. The store keeps per-step sums, not each operation's step: the chosen steps' operations are
 * given their step here, by the analysis's rule ({@link #ops}), from the events in those steps' time
 * ranges alone.
 */
public final class Timeline {
    public static final String SCHEMA = OutputFiles.TIMELINE_SCHEMA;
    /** The track of the step slices in each rank's process. */
    private static final int STEP_TID = 1;
    /** Each rank's track of its steps' critical paths, under its steps. */
    private static final int PATH_TID = 2;
    /** Categories of the file's events: the GPU and CPU ones are Kineto's, so steptrace reads the file back. */
    private static final Map<String, String> KINETO_CATEGORY = Map.of(
            "kernel", "kernel", "memcpy", "gpu_memcpy", "memset", "gpu_memset",
            "runtime", "cuda_runtime", "driver", "cuda_driver", "annotation", "user_annotation");

    private final StoredAnalysis analysis;
    private final Connection c;
    private final CaptureScope scope;
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
        int nextTid = PATH_TID + 1;

        Process(int pid, int rank, String host) {
            this.pid = pid;
            this.rank = rank;
            this.host = host;
        }
    }

    /** A collective kernel's place in the file, for the flow joining its instance across ranks. */
    private record Arrival(int pid, int tid, long tsNs, long durNs) {}

    /** The written steps of the written ranks ({@link #chooseSteps}). */
    private List<ChosenStep> chosen;
    /** {@link #chosen} as a table expression: file_id, rank, step, phase_index, cpu_start, cpu_end. */
    private String stepsSql;
    /** Every step of the written files as a table expression: file_id, step, start_ns, end_ns, gpu_start_ns. */
    private String fileStepsSql;

    private Timeline(StoredAnalysis analysis, StepChoice choice, ClockAlignment alignment) {
        this.analysis = analysis;
        this.c = analysis.connection();
        this.scope = analysis.scope();
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
    public static TimelineResult write(StoredAnalysis analysis, TimelineOptions options, Path dir, String fileName,
                                       String version) throws SQLException, IOException {
        CaptureScope scope = analysis.scope();
        StepChoice choice = StepChoice.choose(analysis, options.phase(), options.steps(), options.neighbours());
        List<Integer> ranks = ranks(scope, options.ranks());
        Map<Integer, String> hosts = hosts(analysis);
        ClockAlignment alignment = options.alignment() == TimelineOptions.Alignment.NONE
                ? ClockAlignment.none(ranks, hosts, null)
                : ClockAlignment.fromClocks(ClockOffsets.estimate(analysis.kept(), choice.phase(), choice.steps()),
                        ranks, hosts);
        Timeline t = new Timeline(analysis, choice, alignment);
        for (int i = 0; i < ranks.size(); i++) {
            t.processes.put(ranks.get(i), new Process(i + 1, ranks.get(i), hosts.get(ranks.get(i))));
        }
        Path file = dir.resolve(fileName != null ? fileName : defaultFileName(choice.phase(), choice.steps()));
        Files.createDirectories(dir);
        Path tmp = OutputFiles.temporary(file);
        long events;
        try {
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                events = t.writeTo(out, !file.getFileName().toString().endsWith(".json"), version);
            }
            OutputFiles.moveIntoPlace(tmp, file);
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

    private static Map<Integer, String> hosts(StoredAnalysis analysis) throws SQLException {
        Map<Integer, String> hosts = new HashMap<>();
        try (PreparedStatement ps = analysis.connection().prepareStatement("""
                SELECT f.rank, f.host_name FROM capture_files m JOIN files f USING (file_id)
                WHERE m.capture_id = ? AND f.rank IS NOT NULL AND f.host_name IS NOT NULL
                """)) {
            ps.setInt(1, analysis.captureId());
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
            StepTimes t = s.times();
            long start = t.gpuStart() == null ? t.cpuStart() : Math.min(t.cpuStart(), t.gpuStart());
            origin = Math.min(origin, start - alignment.offset(s.id().rank()));
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
            criticalPaths(w);
            cpuEvents(w);
            flows(w, instances);
            names(w);
            return w.events();
        }
    }

    /** A written step of a written rank: its file, CPU range (as its source marks it) and GPU range. */
    private record ChosenStep(int fileId, int rank, int step, int phaseIndex, long cpuStart, long cpuEnd, Long gpuStart,
                              Long gpuEnd) {}

    /**
     * The written steps of the written ranks, from the kept analysis; the SQL the queries below join them
     * as ({@code ts}), and the steps of their files ({@code fs}: every step, with its CPU range and its
     * first GPU operation's start).
     */
    private void chooseSteps() throws SQLException {
        chosen = new ArrayList<>();
        try (PreparedStatement ps = analysis.prepare("""
                SELECT m.file_id, m.rank, m.step, m.phase_index, s.start_ns, s.end_ns, m.gpu_start_ns, m.gpu_end_ns
                FROM step_metrics m JOIN steps s USING (capture_id, analysis_key, file_id, step)
                WHERE capture_id = $1 AND analysis_key = $2 AND m.phase = $3
                  AND m.phase_index IN (SELECT unnest(string_split($4, ','))::INTEGER)
                  AND m.rank IN (SELECT unnest(string_split($5, ','))::INTEGER)
                ORDER BY m.file_id, m.step
                """, choice.phase(), join(choice.steps()), join(new ArrayList<>(processes.keySet())));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                chosen.add(new ChosenStep(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getInt(4), rs.getLong(5),
                        rs.getLong(6), (Long) rs.getObject(7), (Long) rs.getObject(8)));
            }
        }
        StringBuilder sb = new StringBuilder("(SELECT * FROM (VALUES ");
        for (int i = 0; i < chosen.size(); i++) {
            ChosenStep t = chosen.get(i);
            sb.append(i > 0 ? ", " : "").append('(').append(t.fileId()).append(", ").append(t.rank()).append(", ")
                    .append(t.step()).append(", ").append(t.phaseIndex()).append(", ").append(t.cpuStart()).append(", ")
                    .append(t.cpuEnd()).append(')');
        }
        if (chosen.isEmpty()) {
            sb.append("(NULL, NULL, NULL, NULL, NULL, NULL)");
        }
        stepsSql = sb.append(") v(file_id, rank, step, phase_index, cpu_start, cpu_end) WHERE file_id IS NOT NULL)")
                .toString();
        fileStepsSql = "(SELECT s.file_id, s.step, s.start_ns, s.end_ns, m.gpu_start_ns FROM steps s"
                + " JOIN step_metrics m USING (capture_id, analysis_key, file_id, step) WHERE " + analysis.where()
                + " AND file_id IN (SELECT file_id FROM " + stepsSql + "))";
    }

    private static String join(List<Integer> values) {
        return String.join(",", values.stream().map(String::valueOf).toList());
    }

    /**
     * Files up to which {@link #within} reads each file's rows in a scan of its own; a UNION ALL of thousands
     * of scans (a timeline of 1000 ranks) takes more than DuckDB's memory limit.
     */
    static final int SCANS_PER_FILE_UP_TO = 64;

    /**
     * The rows of {@code table} in the written files whose {@code ts_ns} lies in the range {@code range}
     * gives each file's chosen steps, as a table expression. Up to {@link #SCANS_PER_FILE_UP_TO} files, one
     * scan per file whose file id and times are constants, so that DuckDB skips the row groups outside them
     * (a join or an OR of such ranges reads the whole table); beyond, one scan bounded by constants (the
     * lowest and highest file id, the earliest start and latest end of the ranges) joined with the ranges.
     */
    private String within(String table, Function<ChosenStep, long[]> range) {
        TreeMap<Integer, long[]> byFile = new TreeMap<>();
        for (ChosenStep t : chosen) {
            long[] r = range.apply(t);
            if (r != null) {
                byFile.merge(t.fileId(), r, (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
            }
        }
        if (byFile.isEmpty()) {
            return "(SELECT * FROM " + table + " WHERE false)";
        }
        if (byFile.size() <= SCANS_PER_FILE_UP_TO) {
            List<String> parts = new ArrayList<>();
            byFile.forEach((file, r) -> parts.add("SELECT * FROM " + table + " WHERE file_id = " + file
                    + " AND ts_ns BETWEEN " + r[0] + " AND " + r[1]));
            return "(" + String.join(" UNION ALL ", parts) + ")";
        }
        StringBuilder ranges = new StringBuilder();
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        for (Map.Entry<Integer, long[]> e : byFile.entrySet()) {
            ranges.append(ranges.length() == 0 ? "" : ", ").append('(').append(e.getKey()).append(", ")
                    .append(e.getValue()[0]).append(", ").append(e.getValue()[1]).append(')');
            from = Math.min(from, e.getValue()[0]);
            to = Math.max(to, e.getValue()[1]);
        }
        return "(SELECT x.* FROM (SELECT * FROM " + table + " WHERE file_id BETWEEN " + byFile.firstKey() + " AND "
                + byFile.lastKey()
                + " AND ts_ns BETWEEN " + from + " AND " + to + ") x JOIN (VALUES " + ranges
                + ") r(file_id, lo, hi) ON x.file_id = r.file_id AND x.ts_ns BETWEEN r.lo AND r.hi)";
    }

    /** A step of one rank: which step, when it ran, and its analysed numbers. */
    private record StepRow(StepId id, StepTimes times, StepNumbers numbers) {}

    /** {@code phaseIndex}: the step's index within its phase; {@code stepNumber}: its number in the trace, if any. */
    private record StepId(int rank, int step, int phaseIndex, String name, Long stepNumber) {}

    /** The step's CPU range, and its GPU range (null when it ran no GPU operation). */
    private record StepTimes(long cpuStart, long cpuEnd, Long gpuStart, Long gpuEnd) {
        long start() {
            return gpuStart != null ? gpuStart : cpuStart;
        }

        long end() {
            return gpuEnd != null ? gpuEnd : cpuEnd;
        }
    }

    /** The step's analysed numbers (step_metrics; null where the analysis has none) and its time per category. */
    private record StepNumbers(long kernelNs, long calls, Long spanNs, Long busyNs, Long idleNs, Long hostGapNs,
                               Map<String, Long> categoryNs) {}

    private List<StepRow> stepRows() throws SQLException {
        Map<List<Integer>, Map<String, Long>> categories = new HashMap<>();
        try (PreparedStatement ps = analysis.prepare("""
                SELECT c.file_id, c.step, c.category, sum(c.ns)::BIGINT AS ns
                FROM step_categories c JOIN %s t USING (file_id, step)
                WHERE c.capture_id = $1 AND c.analysis_key = $2
                GROUP BY ALL ORDER BY c.file_id, c.step, ns DESC, c.category
                """.formatted(stepsSql)); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                categories.computeIfAbsent(List.of(rs.getInt(1), rs.getInt(2)), k -> new LinkedHashMap<>())
                        .put(rs.getString(3), rs.getLong(4));
            }
        }
        List<StepRow> rows = new ArrayList<>();
        try (PreparedStatement ps = analysis.prepare("""
                SELECT m.file_id, m.rank, m.step, m.phase_index, s.name, s.step_number, s.start_ns, s.end_ns,
                       m.gpu_start_ns, m.gpu_end_ns, m.kernel_ns, m.calls, m.span_ns, m.busy_ns, m.idle_ns, m.host_gap_ns
                FROM step_metrics m JOIN steps s USING (capture_id, analysis_key, file_id, step)
                SEMI JOIN %s t USING (file_id, step)
                WHERE capture_id = $1 AND analysis_key = $2
                ORDER BY m.rank, m.step
                """.formatted(stepsSql)); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(new StepRow(
                        new StepId(rs.getInt(2), rs.getInt(3), rs.getInt(4), rs.getString(5), (Long) rs.getObject(6)),
                        new StepTimes(rs.getLong(7), rs.getLong(8), (Long) rs.getObject(9), (Long) rs.getObject(10)),
                        new StepNumbers(rs.getLong(11), rs.getLong(12), (Long) rs.getObject(13),
                                (Long) rs.getObject(14), (Long) rs.getObject(15), (Long) rs.getObject(16),
                                categories.getOrDefault(List.of(rs.getInt(1), rs.getInt(3)), Map.of()))));
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
        j.writeStringField("step_source", analysis.stepSource().id());
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
        StepId id = s.id();
        StepNumbers n = s.numbers();
        Process p = processes.get(id.rank());
        long start = s.times().start();
        long end = s.times().end();
        w.complete(p.pid, STEP_TID, "step", choice.phase() + " step " + id.phaseIndex() + " · " + id.name(),
                time(id.rank(), start), end - start, SliceColors.STEP);
        JsonGenerator a = w.args();
        a.writeNumberField("rank", id.rank());
        a.writeStringField("phase", choice.phase());
        a.writeNumberField("step", id.phaseIndex());
        a.writeStringField("name", id.name());
        if (id.stepNumber() != null) {
            a.writeNumberField("step_number", id.stepNumber());
        }
        a.writeNumberField("kernel_ms", n.kernelNs() / 1e6);
        a.writeNumberField("calls", n.calls());
        writeMs(a, "span_ms", n.spanNs());
        writeMs(a, "busy_ms", n.busyNs());
        writeMs(a, "idle_ms", n.idleNs());
        writeMs(a, "host_gap_ms", n.hostGapNs());
        a.writeObjectFieldStart("category_ms");
        for (Map.Entry<String, Long> e : n.categoryNs().entrySet()) {
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
     * The chosen steps' GPU operations with their step (SQL with {@code ts} and {@code fs} in scope), by the
     * analysis's rule (docs/architecture.md, "Report, step by step", 4): an operation belongs to the step
     * whose CPU range holds the first launch call with its correlation id (the steps' ordering: the
     * lowest step), else, when its launch is not in the trace at all, to the step whose GPU range (from its
     * first to its last operation attributed by launch) it starts in; with steps from GPU bursts, to the
     * last step that began before it. Every operation of a step lies inside the step's kept GPU range, so
     * only the operations in those ranges are read.
     */
    private String ops() {
        String cand = """
                cand AS (
                    SELECT g.file_id, g.kind, g.name_id, g.stream, g.ts_ns, g.dur_ns, g.correlation, g.external_id,
                           g.device, g.bytes, g.grid_x, g.grid_y, g.grid_z, g.block_x, g.block_y, g.block_z
                    FROM %s g WHERE g.kind <> 'sync'
                )""".formatted(within("gpu_ops",
                t -> t.gpuStart() == null ? null : new long[] {t.gpuStart(), t.gpuEnd()}));
        if (analysis.stepSource() == StepSource.GAP) {
            return cand + """
                    , ops AS (
                        SELECT c.*, s.step FROM cand c ASOF JOIN fs s ON c.file_id = s.file_id AND c.ts_ns >= s.start_ns
                    )""";
        }
        String files = String.join(", ", chosen.stream().map(t -> String.valueOf(t.fileId())).distinct().toList());
        return cand + """
                , corr AS (
                    SELECT DISTINCT file_id, correlation FROM cand WHERE correlation IS NOT NULL
                ), launched AS (
                    -- correlations grow with time: their range skips the store's row groups of other steps
                    SELECT l.file_id, l.correlation, l.ts_ns FROM launches l SEMI JOIN corr USING (file_id, correlation)
                    WHERE l.file_id IN (%s)
                      AND l.correlation BETWEEN (SELECT min(correlation) FROM corr) AND (SELECT max(correlation) FROM corr)
                ), launch_step AS (
                    SELECT l.file_id, l.correlation, min(s.step) AS step
                    FROM launched l JOIN fs s ON l.file_id = s.file_id AND l.ts_ns >= s.start_ns AND l.ts_ns < s.end_ns
                    GROUP BY l.file_id, l.correlation
                ), by_launch AS (
                    SELECT c.*, ls.step FROM cand c JOIN launch_step ls USING (file_id, correlation)
                ), windows AS (
                    SELECT file_id, step, max(ts_ns + dur_ns) AS gpu_end FROM by_launch GROUP BY file_id, step
                ), by_window AS (
                    SELECT c.*, w.step
                    FROM (SELECT * FROM cand ANTI JOIN (SELECT DISTINCT file_id, correlation FROM launched) l
                          USING (file_id, correlation)) c
                    ASOF JOIN (SELECT file_id, step, gpu_start_ns FROM fs WHERE gpu_start_ns IS NOT NULL) w
                         ON c.file_id = w.file_id AND c.ts_ns >= w.gpu_start_ns
                    JOIN windows e ON e.file_id = w.file_id AND e.step = w.step AND c.ts_ns < e.gpu_end
                ), ops AS (
                    SELECT * FROM by_launch UNION ALL SELECT * FROM by_window
                )""".formatted(files);
    }

    /**
     * The steps' GPU operations, stream by stream; returns the collective kernels by instance (phase
     * step, type, k) for the flows.
     */
    private Map<List<Object>, List<Arrival>> gpuOps(ChromeTraceWriter w) throws SQLException, IOException {
        Map<Integer, Integer> rankOfFile = new HashMap<>();
        for (ChosenStep t : chosen) {
            rankOfFile.put(t.fileId(), t.rank());
        }
        Map<List<Object>, List<Arrival>> instances = new LinkedHashMap<>();
        Map<String, String> labels = new HashMap<>();
        // Each operation's class: its name's (kernel_classes variant 0), or the one its context gave it
        // (context_ops); collectives add their instance and wait/transfer split (collective_instances).
        try (PreparedStatement ps = analysis.prepare("""
                WITH ts AS %s, fs AS %s, %s, col AS (
                    SELECT DISTINCT ON (file_id, step, ts_ns, dur_ns)
                           file_id, step, ts_ns, dur_ns, type, k, wait_ns, transfer_ns, msg_bytes, dtype
                    FROM collective_instances SEMI JOIN ts USING (file_id, step)
                    WHERE capture_id = $1 AND analysis_key = $2
                ), ctx AS (
                    SELECT DISTINCT file_id, stream, ts_ns, name, variant
                    FROM context_ops SEMI JOIN ts USING (file_id, step)
                    WHERE capture_id = $1 AND analysis_key = $2
                )
                SELECT o.file_id, o.step, t.phase_index, o.kind::VARCHAR, o.name_id, o.stream, o.ts_ns, o.dur_ns,
                       o.correlation, o.external_id, k.category, k.subcategory, k.rule_id,
                       o.device, o.bytes, o.grid_x, o.grid_y, o.grid_z, o.block_x, o.block_y, o.block_z,
                       col.type, col.k, col.wait_ns, col.transfer_ns, col.msg_bytes, col.dtype, n.name
                FROM ops o
                JOIN ts t USING (file_id, step)
                JOIN names n USING (file_id, name_id)
                LEFT JOIN ctx x ON x.file_id = o.file_id AND x.stream IS NOT DISTINCT FROM o.stream AND x.ts_ns = o.ts_ns
                     AND x.name = n.name
                JOIN kernel_classes k ON k.capture_id = $1 AND k.analysis_key = $2 AND k.name = n.name
                     AND k.kind = o.kind::VARCHAR AND k.variant = coalesce(x.variant, 0)
                LEFT JOIN col ON k.category IN ('allreduce', 'comm_other') AND col.file_id = o.file_id
                     AND col.step = o.step AND col.ts_ns = o.ts_ns AND col.dur_ns = o.dur_ns
                ORDER BY o.file_id, o.stream NULLS FIRST, o.ts_ns, o.dur_ns DESC
                """.formatted(stepsSql, fileStepsSql, ops())); ResultSet rs = ps.executeQuery()) {
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
                String full = rs.getString(28);
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

    /**
     * Each written step's critical path on its rank (docs/whatif.md, "Critical path"), as consecutive slices on a
     * track of its own: what set the step's time, segment by segment.
     */
    private void criticalPaths(ChromeTraceWriter w) throws SQLException, IOException {
        Map<Integer, Map<Integer, Integer>> stepsOfFile = new LinkedHashMap<>(); // step to its phase index
        Map<Integer, Integer> rankOfFile = new HashMap<>();
        for (ChosenStep t : chosen) {
            stepsOfFile.computeIfAbsent(t.fileId(), f -> new HashMap<>()).put(t.step(), t.phaseIndex());
            rankOfFile.put(t.fileId(), t.rank());
        }
        for (Map.Entry<Integer, Map<Integer, Integer>> f : stepsOfFile.entrySet()) {
            int rank = rankOfFile.get(f.getKey());
            Process p = processes.get(rank);
            Map<Integer, List<CriticalPaths.Segment>> paths = CriticalPaths.segments(analysis.kept(),
                    analysis.stepSource().gpuAnchored(), HostSyncCalls.NAMES, f.getKey(), f.getValue().keySet());
            for (Map.Entry<Integer, List<CriticalPaths.Segment>> path : paths.entrySet()) {
                for (CriticalPaths.Segment s : path.getValue()) {
                    w.complete(p.pid, PATH_TID, "critical_path", s.part().label(), time(rank, s.startNs()),
                            s.endNs() - s.startNs(), SliceColors.path(s.part()));
                    JsonGenerator a = w.args();
                    a.writeStringField("part", s.part().id());
                    a.writeNumberField("step", f.getValue().get(path.getKey()));
                    a.writeFieldName("duration_us");
                    a.writeNumber(ChromeTraceWriter.micros(s.endNs() - s.startNs()));
                    w.end();
                }
            }
        }
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
                FROM tracks k JOIN %s t USING (file_id)
                WHERE k.tid IS NOT NULL AND k.name IS NOT NULL
                """.formatted(stepsSql))) {
            while (rs.next()) {
                processes.get(rs.getInt(1)).cpuThreadNames.put(rs.getLong(2) + "/" + rs.getLong(3), rs.getString(4));
            }
        }
        Function<ChosenStep, long[]> cpu = t -> new long[] {t.cpuStart(), t.cpuEnd()};
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                WITH ts AS %s
                SELECT t.rank, l.kind::VARCHAR, n.name, l.pid, l.tid, l.ts_ns, l.dur_ns, l.correlation, l.external_id,
                       l.cbid
                FROM %s l
                JOIN ts t ON l.file_id = t.file_id AND l.ts_ns >= t.cpu_start AND l.ts_ns < t.cpu_end
                JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id
                UNION ALL
                SELECT t.rank, 'annotation', n.name, o.pid, o.tid, o.ts_ns, o.dur_ns, NULL, NULL, NULL
                FROM %s o
                JOIN ts t ON o.file_id = t.file_id AND o.ts_ns >= t.cpu_start AND o.ts_ns < t.cpu_end
                JOIN names n ON n.file_id = o.file_id AND n.name_id = o.name_id
                WHERE %s
                ORDER BY 1, 4, 5, 6, 7 DESC
                """.formatted(stepsSql, within("launches", cpu), within("cpu_ops", cpu), StepSource.ANNOTATIONS))) {
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
            w.threadName(p.pid, PATH_TID, "critical path", PATH_TID);
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
                FROM devices d JOIN (SELECT DISTINCT file_id, rank FROM %s) t USING (file_id)
                WHERE d.name IS NOT NULL
                """.formatted(stepsSql))) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getInt(1), r -> new HashMap<>()).put(rs.getInt(2), rs.getString(3));
            }
        }
        return out;
    }
}
