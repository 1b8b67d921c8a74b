package dev.steptrace.analysis;

import dev.steptrace.common.Messages;
import dev.steptrace.ingest.InputDamage;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.BottleneckReport.Warning;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Capture-quality checks: what in the capture limits what the numbers can say. Each check has a
 * stable code (report.json {@code warnings[].code}), a threshold where one applies, and a message
 * that names the evidence.
 */
final class CaptureQuality {
    /** Rank clocks further apart than this (median over matched collectives) are reported. */
    static final double CLOCK_OFFSET_WARN_US = 100;
    /** Unclassified kernel time above this share of all kernel time is reported. */
    static final double UNCLASSIFIED_WARN_PCT = 5;

    private CaptureQuality() {}

    static List<Warning> check(Connection c, CaptureScope scope, StepSource source) throws SQLException {
        List<Warning> out = new ArrayList<>();
        partialFiles(scope, out);
        ranks(scope, out);
        CaptureDevices.warnings(c, out);
        steps(c, source, out);
        outsideSteps(c, out);
        graphsWithoutKernels(c, out);
        multiGpuFiles(c, out);
        unclassified(c, out);
        untypedGenericCollectives(c, out);
        clockOffsets(c, out);
        return out;
    }

    private static void partialFiles(CaptureScope scope, List<Warning> out) {
        for (CaptureScope.FileInfo f : scope.files()) {
            if (!"partial".equals(f.status())) {
                continue;
            }
            String reason = String.valueOf(f.partialReason());
            out.add(new Warning("partial_file", reason.startsWith(InputDamage.CONTENT_MAY_BE_WRONG)
                    ? "rank " + f.rank() + ": " + f.path().getFileName() + ": " + reason + "; this rank's figures may"
                            + " be wrong"
                    : "rank " + f.rank() + ": " + f.path().getFileName() + " is incomplete (" + reason
                            + "); events after the damage are missing"));
        }
    }

    private static void ranks(CaptureScope scope, List<Warning> out) {
        Map<Integer, Integer> perRank = new TreeMap<>();
        Integer worldSize = null;
        for (CaptureScope.FileInfo f : scope.files()) {
            if (f.rank() != null) {
                perRank.merge(f.rank(), 1, Integer::sum);
            }
            if (f.worldSize() != null) {
                worldSize = worldSize == null ? f.worldSize() : Math.max(worldSize, f.worldSize());
            }
        }
        perRank.forEach((rank, n) -> {
            if (n > 1) {
                out.add(new Warning("duplicate_rank", n + " files claim rank " + rank
                        + "; per-rank figures mix them"));
            }
        });
        if (worldSize != null && perRank.size() < worldSize) {
            List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < worldSize; r++) {
                if (!perRank.containsKey(r)) {
                    missing.add(r);
                }
            }
            out.add(new Warning("missing_ranks", "the traces say world size " + worldSize + " but only "
                    + perRank.size() + " rank file(s) are in the capture; missing ranks " + Messages.ranges(missing)
                    + " (figures across ranks cover only the ranks present)"));
        }
    }

    private static void steps(Connection c, StepSource source, List<Warning> out) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT code, message FROM t_step_notes")) {
            while (rs.next()) {
                out.add(new Warning(rs.getString(1), rs.getString(2) + "; the steps come from the next source, "
                        + source.id()));
            }
        }
        long steps = StepDetector.count(c, "SELECT count(*) FROM t_steps");
        if (steps == 0) {
            out.add(new Warning("no_steps", "no steps were found (source tried: " + source.id()
                    + "); pass --step-regex to name the annotation that marks a step"));
            return;
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT phase, string_agg('rank ' || rank || ': ' || n, ', ' ORDER BY rank), min(n), max(n)
                FROM (SELECT phase, rank, count(*) AS n FROM t_step_metrics GROUP BY phase, rank)
                GROUP BY phase HAVING min(n) <> max(n) ORDER BY phase
                """)) {
            while (rs.next()) {
                out.add(new Warning("step_count_mismatch", rs.getString(1) + ": ranks have different step counts ("
                        + rs.getString(2) + "); collectives are matched over the first " + rs.getLong(3)
                        + " steps of each rank"));
            }
        }
        long unknown = StepDetector.count(c, "SELECT count(*) FROM t_steps WHERE phase = 'unknown'");
        if (unknown > 0) {
            out.add(new Warning("unknown_phase", unknown + " step(s) have no phase: no vLLM step counts and no"
                    + " prefill/extend/decode annotation inside them"));
        }
    }

    private static void outsideSteps(Connection c, List<Warning> out) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT count(*) FILTER (WHERE step IS NULL), coalesce(sum(dur_ns) FILTER (WHERE step IS NULL), 0),
                       coalesce(sum(dur_ns), 0)
                FROM t_ops_core
                """)) {
            rs.next();
            long n = rs.getLong(1);
            if (n > 0) {
                double ms = rs.getLong(2) / 1e6;
                double pct = rs.getLong(3) == 0 ? 0 : 100.0 * rs.getLong(2) / rs.getLong(3);
                out.add(new Warning("ops_outside_steps", String.format(Locale.ROOT,
                        "%d GPU operation(s) (%.2f ms, %.1f%% of GPU time) belong to no step: launched outside"
                                + " every step, or outside every step's GPU window; they are not in per-step figures",
                        n, ms, pct)));
            }
        }
    }

    /**
     * Graph launches with no per-kernel records: none at all, or only the one whole-replay row of an
     * Nsight Systems capture taken with {@code --cuda-graph-trace=graph} (a kernel row with a graph id
     * and no graph node id).
     */
    private static void graphsWithoutKernels(Connection c, List<Warning> out) throws SQLException {
        // The operations are matched to the graph launches first: a NOT EXISTS per launch would hash
        // every operation of the capture to probe it.
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                WITH graph AS (
                    SELECT l.file_id, l.correlation FROM launches l JOIN t_files USING (file_id)
                    JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id
                    WHERE n.name IN ('cudaGraphLaunch', 'hipGraphLaunch')
                ), replayed AS (
                    SELECT DISTINCT g.file_id, g.correlation FROM gpu_ops g JOIN files f USING (file_id)
                    SEMI JOIN graph l ON l.file_id = g.file_id AND l.correlation = g.correlation
                    WHERE NOT (f.format LIKE 'nsys-%' AND g.graph_id IS NOT NULL AND g.graph_node_id IS NULL)
                )
                SELECT count(*), count(*) FILTER (WHERE r.file_id IS NULL)
                FROM graph l LEFT JOIN replayed r ON r.file_id = l.file_id AND r.correlation = l.correlation
                """)) {
            rs.next();
            long launches = rs.getLong(1);
            long empty = rs.getLong(2);
            if (empty > 0) {
                out.add(new Warning("graph_without_kernels", empty + " of " + launches
                        + " CUDA graph launches have no kernel records: those replays were captured without"
                        + " per-kernel activity, so their time cannot be split into categories"));
            }
        }
    }

    /**
     * A file holding the GPU work of several processes or devices (an Nsight Systems report of a
     * whole tensor-parallel server): one file is one rank, so its figures add the GPUs up.
     */
    private static void multiGpuFiles(Connection c, List<Warning> out) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT f.rank, f.path, (f.anomalies->>'$.cuda_processes')::BIGINT, (f.anomalies->>'$.gpu_devices')::BIGINT
                FROM files f JOIN t_files USING (file_id)
                WHERE (f.anomalies->>'$.cuda_processes') IS NOT NULL OR (f.anomalies->>'$.gpu_devices') IS NOT NULL
                ORDER BY f.rank, f.path
                """)) {
            while (rs.next()) {
                String what = rs.getObject(3) != null && rs.getObject(4) != null
                        ? rs.getLong(3) + " processes on " + rs.getLong(4) + " GPUs"
                        : rs.getObject(3) != null ? rs.getLong(3) + " processes" : rs.getLong(4) + " GPUs";
                out.add(new Warning("multi_gpu_file", "rank " + rs.getObject(1) + ": "
                        + java.nio.file.Path.of(rs.getString(2)).getFileName() + " holds the GPU work of " + what
                        + "; a file is read as one rank, so its per-step figures add them up (profile one report"
                        + " per rank, e.g. nsys profile -o rank%q{RANK})"));
            }
        }
    }

    private static void unclassified(Connection c, List<Warning> out) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT coalesce(sum(ns) FILTER (WHERE rule_id = 'other.unclassified'), 0), coalesce(sum(ns), 0),
                       (SELECT count(DISTINCT n.name) FROM t_classes k JOIN names n USING (file_id, name_id)
                        WHERE k.rule_id = 'other.unclassified')
                FROM t_step_names
                """)) {
            rs.next();
            double pct = rs.getLong(2) == 0 ? 0 : 100.0 * rs.getLong(1) / rs.getLong(2);
            if (pct > UNCLASSIFIED_WARN_PCT) {
                out.add(new Warning("unclassified_kernels", String.format(Locale.ROOT,
                        "%.1f%% of kernel time is in %d kernel name(s) no taxonomy rule matched; see them with"
                                + " `steptrace taxonomy --explain NAME` and add rules with --taxonomy FILE",
                        pct, rs.getLong(3))));
            }
        }
    }

    /** Generic collective launches ({@code ncclDevKernel_Generic}) no CPU op typed (docs/taxonomy.md). */
    private static void untypedGenericCollectives(Connection c, List<Warning> out) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT coalesce(sum(calls), 0), coalesce(sum(ns), 0), (SELECT coalesce(sum(calls), 0) FROM t_step_names"
                        + " WHERE rule_id IN ('" + ContextClasses.GENERIC_ALLREDUCE + "', '" + ContextClasses.GENERIC_OTHER
                        + "')) FROM t_step_names WHERE rule_id = '" + ContextClasses.GENERIC_COLLECTIVE_RULE + "'")) {
            rs.next();
            if (rs.getLong(1) > 0) {
                out.add(new Warning("untyped_generic_collectives", String.format(Locale.ROOT,
                        "%d launch(es) (%.2f ms) of ncclDevKernel_Generic (RCCL names every collective so) have no"
                                + " launching CPU op that names their collective (CUDA/HIP graph replays carry none): they"
                                + " count as Other collectives / nccl_generic, not as AllReduce; %d launch(es) were typed"
                                + " from their CPU op", rs.getLong(1), rs.getLong(2) / 1e6, rs.getLong(3))));
            }
        }
    }

    /** Rank clocks further apart than {@link #CLOCK_OFFSET_WARN_US} ({@link ClockOffsets}, whole capture). */
    private static void clockOffsets(Connection c, List<Warning> out) throws SQLException {
        List<String> off = new ArrayList<>();
        for (ClockOffsets.RankClock clock : ClockOffsets.estimate(c, null, null)) {
            double us = clock.offsetNs() / 1000.0;
            if (Math.abs(us) > CLOCK_OFFSET_WARN_US) {
                off.add(String.format(Locale.ROOT, "rank %d %+.0f µs", clock.rank(), us));
            }
        }
        if (!off.isEmpty()) {
            out.add(new Warning("clock_offset", "rank clocks disagree (median offset of collective end times"
                    + " from the other ranks: " + String.join(", ", off) + "); cross-rank timelines are"
                    + " shifted by that much, per-rank durations are unaffected"));
        }
    }

    /**
     * A warning per phase whose GPU waits for the CPU to launch work for much of the step (rule:
     * {@link HostBoundMetrics}), from the host-bound figures the report shows.
     */
    static List<Warning> launchBound(Map<String, BottleneckReport.HostBound> host) {
        List<Warning> out = new ArrayList<>();
        for (String phase : ReportBuilder.PHASES) {
            BottleneckReport.HostBound h = host.get(phase);
            if (h != null && Boolean.TRUE.equals(h.launchBound())) {
                out.add(new Warning("launch_bound", String.format(Locale.ROOT, "%s is launch-bound: the GPU waits for"
                                + " the CPU to launch work %.1f%% of the step span (%.2f ms per step, at least %.0f%% is"
                                + " launch-bound); fewer, larger kernels or CUDA graphs would close the gaps",
                        phase, h.launchWaitPctOfSpan(), h.launchWaitMsPerStep(), HostBoundMetrics.LAUNCH_BOUND_PCT)));
            }
        }
        return out;
    }
}
