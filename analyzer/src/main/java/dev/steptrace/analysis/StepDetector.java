package dev.steptrace.analysis;

import dev.steptrace.common.Phase;
import dev.steptrace.common.StepSource;
import dev.steptrace.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a capture's steps and their phases (docs/architecture.md, "Report, step by step") into the session's temp
 * table {@code t_steps(file_id, step, name, phase, cpu_start, cpu_end, step_number)}: one row per
 * step per file, {@code step} counting from 0 in time order within the file.
 *
 * <p>Annotation names are matched in Java on the distinct names (a handful), so {@code --step-regex}
 * and the built-in patterns share Java regex semantics.
 */
final class StepDetector {
    /** Annotation names that tell a step's phase when vLLM's counts are absent. */
    private static final Pattern PREFILL_HINT = Pattern.compile("prefill|extend", Pattern.CASE_INSENSITIVE);
    private static final Pattern DECODE_HINT = Pattern.compile("decode", Pattern.CASE_INSENSITIVE);
    private static final Pattern MIXED_HINT = Pattern.compile("mixed", Pattern.CASE_INSENSITIVE);
    /** NVTX domains of libraries, whose ranges mark library calls, never steps. */
    static final List<String> LIBRARY_NVTX_DOMAINS = List.of("NCCL", "cuBLAS", "cuBLASLt", "cuDNN", "CUTLASS", "NVSHMEM");
    /** NVTX step ranges hold at least this share of the GPU time their thread launched inside its top-level ranges. */
    static final double NVTX_STEP_SHARE = 0.9;

    private StepDetector() {}

    /**
     * Builds {@code t_annot}, {@code t_steps} and {@code t_step_notes(code, message)} (why a step source that
     * exists in the capture was not used, for the capture-quality warnings); returns the source used.
     */
    static StepSource detect(Connection c, Pattern userRegex) throws SQLException {
        Sql.exec(c, "CREATE OR REPLACE TEMP TABLE t_step_notes (code VARCHAR, message VARCHAR)");
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_annot AS
                SELECT o.file_id, n.name, o.pid, o.tid, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns
                FROM cpu_ops o
                JOIN t_files USING (file_id)
                JOIN names n ON n.file_id = o.file_id AND n.name_id = o.name_id
                WHERE """ + StepSource.ANNOTATIONS);
        List<String> names = Sql.strings(c, "SELECT DISTINCT name FROM t_annot ORDER BY name");
        Sql.exec(c, "CREATE OR REPLACE TEMP TABLE h_vllm_steps (name VARCHAR, phase VARCHAR, step_number BIGINT)");
        StepSource source = null;
        if (userRegex != null) {
            source = matchNames(c, names, userRegex, StepSource.USER_REGEX) ? StepSource.USER_REGEX : null;
        }
        if (source == null) {
            // SGLang writes its step[...] annotations and, in some versions, vLLM's execute_..._generation_...
            // form around the same work: a capture with SGLang's is SGLang's, whichever form marks its steps.
            boolean vllm = matchNames(c, names, StepSource.VLLM_STEP, StepSource.VLLM_ANNOTATION);
            boolean sglang = matchNames(c, names, StepSource.SGLANG_STEP, StepSource.SGLANG_ANNOTATION);
            source = sglang ? StepSource.SGLANG_ANNOTATION : vllm ? StepSource.VLLM_ANNOTATION : null;
        }
        if (source == null && matchNames(c, names, StepSource.PROFILER_STEP_NAME, StepSource.PROFILER_STEP)) {
            source = StepSource.PROFILER_STEP;
        }
        if (source != null) {
            annotationSteps(c);
        } else if (nvtxSteps(c)) {
            source = StepSource.NVTX;
        } else if (Sql.count(c, "SELECT count(*) FROM launches l JOIN t_files USING (file_id) JOIN names n"
                + " ON n.file_id = l.file_id AND n.name_id = l.name_id WHERE n.name IN " + Sql.inList(StepSource.GRAPH_LAUNCHES)) > 0) {
            source = StepSource.GRAPH_LAUNCH;
            graphLaunchSteps(c);
        } else {
            source = StepSource.GAP;
            gapSteps(c);
        }
        assignPhases(c, names);
        return source;
    }

    /** Records the names that are steps; returns whether any matched. */
    private static boolean matchNames(Connection c, List<String> names, Pattern p, StepSource source)
            throws SQLException {
        boolean any = false;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO h_vllm_steps VALUES (?, ?, ?)")) {
            for (String name : names) {
                Matcher m = p.matcher(name);
                if (!m.find()) {
                    continue;
                }
                any = true;
                ps.setString(1, name);
                ps.setString(2, source == StepSource.VLLM_ANNOTATION ? vllmPhase(m) : null);
                ps.setObject(3, source == StepSource.PROFILER_STEP ? Long.parseLong(m.group(1)) : null);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        return any;
    }

    /** context > 0 and generation 0 is prefill, both > 0 mixed, context 0 decode. */
    static String vllmPhase(Matcher m) {
        long context = Long.parseLong(m.group(1));
        long generation = Long.parseLong(m.group(3));
        if (context > 0) {
            return (generation > 0 ? Phase.MIXED : Phase.PREFILL).id();
        }
        return Phase.DECODE.id();
    }

    private static void annotationSteps(Connection c) throws SQLException {
        // An annotation nested in another step annotation of the same file is not a step of its own.
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_steps AS
                WITH a AS (
                    SELECT a.file_id, a.name, a.ts_ns, a.end_ns, s.phase, s.step_number
                    FROM t_annot a JOIN h_vllm_steps s USING (name)
                ), outer_only AS (
                    SELECT * FROM a
                    WHERE NOT EXISTS (
                        SELECT 1 FROM a b
                        WHERE b.file_id = a.file_id AND b.ts_ns <= a.ts_ns AND b.end_ns >= a.end_ns
                          AND (b.ts_ns < a.ts_ns OR b.end_ns > a.end_ns))
                )
                SELECT file_id, (row_number() OVER (PARTITION BY file_id ORDER BY ts_ns) - 1)::INTEGER AS step,
                       name, phase, ts_ns AS cpu_start, end_ns AS cpu_end, step_number
                FROM outer_only
                """);
    }

    /**
     * NVTX step source (Nsight Systems captures whose annotations matched no named source). Per file:
     * <ol>
     *   <li>the main thread is the one whose runtime/driver calls launched the most GPU operations
     *       (calls whose correlation id a GPU operation carries);</li>
     *   <li>candidates are the NVTX push/pop ranges of that thread, except those of library domains
     *       ({@link #LIBRARY_NVTX_DOMAINS}: NCCL marks its own API calls), with a duration;</li>
     *   <li>a range's level is how many candidate ranges enclose it; a range is busy when one of the
     *       main thread's GPU launches falls inside it;</li>
     *   <li>the step level is the shallowest level that has more than one busy range (a single range around
     *       the whole run is not a step: the level below it is used);</li>
     *   <li>a step repeats at that level and tiles the GPU work: the steps are the ranges of one family (names
     *       equal once digit runs are replaced, so {@code step_1}, {@code step_2} are one family) with at least
     *       two ranges, a name that does not say {@code layer} (layers inside a step are not steps), holding
     *       at least {@link #NVTX_STEP_SHARE} of the GPU time the thread launched inside its top-level ranges;
     *       the family holding the most wins;</li>
     *   <li>when every level has a single busy range, the outermost is the one step.</li>
     * </ol>
     * Returns false (and builds nothing) when no file has a busy NVTX range, or when a file's ranges are not
     * steps (a note in {@code t_step_notes} says why; the next source is used).
     */
    private static boolean nvtxSteps(Connection c) throws SQLException {
        if (Sql.count(c, "SELECT count(*) FROM cpu_ops o JOIN t_files USING (file_id) WHERE o.nvtx = 'push_pop'") == 0) {
            return false;
        }
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_nvtx_launch AS
                SELECT l.file_id, l.pid, l.tid, l.ts_ns, g.ns
                FROM launches l JOIN t_files USING (file_id)
                JOIN (SELECT g.file_id, g.correlation, sum(g.dur_ns) AS ns FROM gpu_ops g JOIN t_files USING (file_id)
                      WHERE g.correlation IS NOT NULL AND g.kind <> 'sync' GROUP BY g.file_id, g.correlation) g
                    ON g.file_id = l.file_id AND g.correlation = l.correlation
                """);
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_nvtx_main AS
                SELECT file_id, pid, tid FROM t_nvtx_launch
                GROUP BY file_id, pid, tid
                QUALIFY row_number() OVER (PARTITION BY file_id ORDER BY count(*) DESC, pid, tid) = 1
                """);
        Sql.exec(c, "CREATE OR REPLACE TEMP TABLE t_nvtx_ranges AS"
                + " SELECT row_number() OVER () AS id, o.file_id, n.name, o.ts_ns, o.ts_ns + o.dur_ns AS end_ns"
                + " FROM cpu_ops o JOIN t_nvtx_main m ON m.file_id = o.file_id AND m.pid = o.pid AND m.tid = o.tid"
                + " JOIN names n ON n.file_id = o.file_id AND n.name_id = o.name_id"
                + " WHERE o.nvtx = 'push_pop' AND o.dur_ns > 0"
                + " AND (o.nvtx_domain IS NULL OR o.nvtx_domain NOT IN " + Sql.inList(LIBRARY_NVTX_DOMAINS) + ")");
        // Level by a sweep over start (+1) and end (-1) events: ends before starts at the same time,
        // and of ranges starting together the longer first (push/pop ranges of a thread nest).
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_nvtx_levels AS
                WITH ev AS (
                    SELECT file_id, id, ts_ns AS t, 1 AS delta, 1 AS ord, end_ns FROM t_nvtx_ranges
                    UNION ALL
                    SELECT file_id, id, end_ns AS t, -1 AS delta, 0 AS ord, end_ns FROM t_nvtx_ranges
                ), run AS (
                    SELECT id, delta,
                           sum(delta) OVER (PARTITION BY file_id ORDER BY t, ord, end_ns DESC, id
                                            ROWS UNBOUNDED PRECEDING) - 1 AS level
                    FROM ev
                )
                SELECT r.*, run.level FROM t_nvtx_ranges r JOIN run ON run.id = r.id AND run.delta = 1
                """);
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_nvtx_busy AS
                SELECT r.id, r.file_id, r.name, regexp_replace(r.name, '[0-9]+', '#', 'g') AS family, r.ts_ns,
                       r.end_ns, r.level, sum(l.ns) AS ns
                FROM t_nvtx_levels r
                JOIN t_nvtx_main m ON m.file_id = r.file_id
                JOIN t_nvtx_launch l ON l.file_id = r.file_id AND l.pid = m.pid AND l.tid = m.tid
                    AND l.ts_ns >= r.ts_ns AND l.ts_ns < r.end_ns
                GROUP BY r.id, r.file_id, r.name, r.ts_ns, r.end_ns, r.level
                """);
        // Per file, the step family: at the first level reached through single wrapping ranges, a family that
        // repeats, is not named per layer and holds NVTX_STEP_SHARE of the GPU time; when every level has one
        // range, the outermost is the one step; otherwise the best candidate, for the note.
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_nvtx_family AS
                WITH per_level AS (
                    SELECT file_id, level, count(*) AS n FROM t_nvtx_busy GROUP BY file_id, level
                ), reach AS (
                    SELECT file_id, coalesce(min(level) FILTER (WHERE n <> 1), max(level)) AS level,
                           max(n) = 1 AS single
                    FROM per_level GROUP BY file_id
                ), top AS (
                    SELECT file_id, sum(ns) AS ns FROM t_nvtx_busy WHERE level = 0 GROUP BY file_id
                ), families AS (
                    SELECT b.file_id, b.level, b.family, count(*) AS n, sum(b.ns) / t.ns AS share,
                           regexp_matches(b.family, '(?i)layer') AS layer
                    FROM t_nvtx_busy b JOIN top t USING (file_id)
                    GROUP BY b.file_id, b.level, b.family, t.ns
                ), judged AS (
                    SELECT f.*, r.level AS reach, r.single, r.single OR (f.n >= 2 AND NOT f.layer AND f.share >= %s) AS steps
                    FROM families f JOIN reach r USING (file_id)
                    WHERE f.level <= r.level
                )
                SELECT file_id, level, family, n, share, layer, steps FROM judged
                QUALIFY row_number() OVER (PARTITION BY file_id
                                           ORDER BY steps DESC, CASE WHEN single THEN -level ELSE (level = reach)::INTEGER END DESC,
                                                    n >= 2 DESC, share DESC, family) = 1
                """.formatted(String.valueOf(NVTX_STEP_SHARE)));
        Sql.exec(c, """
                INSERT INTO t_step_notes
                SELECT 'nvtx_ranges_not_steps',
                       'rank ' || coalesce(t.rank::VARCHAR, '?') || ': NVTX ranges do not mark steps: the range family'
                       || ' at the top level (below single wrapping ranges) holding the most GPU work, '''
                       || f.family || ''' (' || f.n || ' range(s), ' || round(100 * f.share, 1)
                       || '%% of the GPU time its thread launched inside its top-level ranges), '
                       || CASE WHEN f.layer THEN 'is named per layer: layers are not steps'
                               ELSE 'does not repeat and hold at least %s%% of it' END
                       || ' (docs/formats.md, steps from NVTX)'
                FROM t_nvtx_family f JOIN t_files t USING (file_id)
                WHERE NOT f.steps ORDER BY t.rank
                """.formatted(Math.round(100 * NVTX_STEP_SHARE)));
        if (Sql.count(c, "SELECT count(*) FROM t_nvtx_family WHERE NOT steps") > 0) {
            return false;
        }
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_steps AS
                SELECT b.file_id, (row_number() OVER (PARTITION BY b.file_id ORDER BY b.ts_ns) - 1)::INTEGER AS step,
                       b.name, NULL::VARCHAR AS phase, b.ts_ns AS cpu_start, b.end_ns AS cpu_end,
                       NULL::BIGINT AS step_number
                FROM t_nvtx_busy b JOIN t_nvtx_family f USING (file_id, level, family)
                """);
        return Sql.count(c, "SELECT count(*) FROM t_steps") > 0;
    }

    private static void graphLaunchSteps(Connection c) throws SQLException {
        Sql.exec(c, "CREATE OR REPLACE TEMP TABLE t_steps AS "
                + "SELECT l.file_id, (row_number() OVER w - 1)::INTEGER AS step, n.name, NULL::VARCHAR AS phase,"
                + " l.ts_ns AS cpu_start, coalesce(lead(l.ts_ns) OVER w, f.last_ts_ns + 1) AS cpu_end,"
                + " NULL::BIGINT AS step_number"
                + " FROM launches l JOIN t_files USING (file_id) JOIN files f USING (file_id)"
                + " JOIN names n ON n.file_id = l.file_id AND n.name_id = l.name_id"
                + " WHERE n.name IN " + Sql.inList(StepSource.GRAPH_LAUNCHES)
                + " WINDOW w AS (PARTITION BY l.file_id ORDER BY l.ts_ns)");
    }

    /**
     * Steps as bursts of GPU work: a new step starts after an idle gap longer than
     * max(200 µs, 10 x the file's median gap between consecutive GPU operations).
     */
    private static void gapSteps(Connection c) throws SQLException {
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_steps AS
                WITH o AS (
                    SELECT g.file_id, g.ts_ns, g.ts_ns + g.dur_ns AS end_ns
                    FROM gpu_ops g JOIN t_files USING (file_id) WHERE g.kind <> 'sync'
                ), gaps AS (
                    SELECT file_id, ts_ns, end_ns,
                           ts_ns - max(end_ns) OVER (PARTITION BY file_id ORDER BY ts_ns, end_ns
                                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS gap
                    FROM o
                ), threshold AS (
                    SELECT file_id, greatest(200000, 10 * quantile_cont(greatest(gap, 0), 0.5)) AS t
                    FROM gaps WHERE gap IS NOT NULL GROUP BY file_id
                ), marked AS (
                    SELECT g.file_id, g.ts_ns, g.end_ns,
                           sum(CASE WHEN g.gap IS NULL OR g.gap > coalesce(t.t, 200000) THEN 1 ELSE 0 END)
                               OVER (PARTITION BY g.file_id ORDER BY g.ts_ns, g.end_ns ROWS UNBOUNDED PRECEDING) AS burst
                    FROM gaps g LEFT JOIN threshold t USING (file_id)
                )
                SELECT file_id, (burst - 1)::INTEGER AS step, 'gpu burst ' || burst AS name, NULL::VARCHAR AS phase,
                       min(ts_ns) AS cpu_start, max(end_ns) + 1 AS cpu_end, NULL::BIGINT AS step_number
                FROM marked GROUP BY file_id, burst
                """);
    }

    /**
     * Phase of steps that vLLM's counts did not settle: from CPU annotations inside the step whose
     * names say prefill/extend, decode or mixed (the step's own name included).
     */
    private static void assignPhases(Connection c, List<String> annotationNames) throws SQLException {
        Sql.exec(c, "CREATE OR REPLACE TEMP TABLE t_phase_names (name VARCHAR, hint VARCHAR)");
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t_phase_names VALUES (?, ?)")) {
            for (String name : annotationNames) {
                Phase hint = MIXED_HINT.matcher(name).find() ? Phase.MIXED
                        : PREFILL_HINT.matcher(name).find() ? (DECODE_HINT.matcher(name).find() ? Phase.MIXED : Phase.PREFILL)
                        : DECODE_HINT.matcher(name).find() ? Phase.DECODE : null;
                if (hint != null) {
                    ps.setString(1, name);
                    ps.setString(2, hint.id());
                    ps.addBatch();
                }
            }
            ps.executeBatch();
        }
        Sql.exec(c, """
                UPDATE t_steps SET phase = h.phase
                FROM (
                    SELECT s.file_id, s.step,
                           CASE WHEN bool_or(p.hint = 'mixed') OR (bool_or(p.hint = 'prefill') AND bool_or(p.hint = 'decode'))
                                    THEN 'mixed'
                                WHEN bool_or(p.hint = 'prefill') THEN 'prefill'
                                WHEN bool_or(p.hint = 'decode') THEN 'decode' END AS phase
                    FROM t_steps s
                    JOIN t_annot a ON a.file_id = s.file_id AND a.ts_ns >= s.cpu_start AND a.ts_ns < s.cpu_end
                    JOIN t_phase_names p ON p.name = a.name
                    WHERE s.phase IS NULL
                    GROUP BY s.file_id, s.step
                ) h
                WHERE t_steps.file_id = h.file_id AND t_steps.step = h.step AND t_steps.phase IS NULL
                """);
        Sql.exec(c, "UPDATE t_steps SET phase = 'unknown' WHERE phase IS NULL");
    }
}
