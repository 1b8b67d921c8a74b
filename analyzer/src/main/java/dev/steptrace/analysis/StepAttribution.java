package dev.steptrace.analysis;

import static dev.steptrace.analysis.StepDetector.exec;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Gives every GPU operation of the capture its step, into temp table {@code t_ops_core(file_id, kind,
 * name_id, stream, ts_ns, dur_ns, correlation, external_id, step, by_launch, variant)}: ids and numbers only
 * (no strings: half the time to write, less to scan; {@code variant} 0: the class of the operation's
 * name, {@link ContextClasses} sets others); the metrics join the classes onto its aggregates.
 *
 * <p>a kernel belongs to the step whose CPU range contains the runtime call that launched it
 * (same correlation id; under CUDA graphs every kernel of a replay shares the {@code cudaGraphLaunch}'s
 * id). Operations whose launch is not in the trace fall back to the step's GPU time window (from the
 * first to the last operation attributed through launches). {@code by_launch} says which rule applied.
 */
final class StepAttribution {
    private StepAttribution() {}

    static void attribute(Connection c, StepSource source) throws SQLException {
        if (source == StepSource.GAP) {
            byTimeOnly(c);
        } else {
            byLaunch(c);
        }
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_windows AS
                SELECT file_id, step, min(ts_ns) AS gpu_start, max(ts_ns + dur_ns) AS gpu_end, count(*) AS ops
                FROM t_ops_core WHERE step IS NOT NULL GROUP BY file_id, step
                """);
    }

    private static void byLaunch(Connection c) throws SQLException {
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_launch_step AS
                SELECT l.file_id, l.correlation, min(s.step) AS step
                FROM launches l
                JOIN t_steps s ON l.file_id = s.file_id AND l.ts_ns >= s.cpu_start AND l.ts_ns < s.cpu_end
                WHERE l.correlation IS NOT NULL
                GROUP BY l.file_id, l.correlation
                """);
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_ops_core AS
                SELECT g.file_id, g.kind, g.name_id, g.stream, g.ts_ns, g.dur_ns, g.correlation, g.external_id,
                       ls.step, ls.step IS NOT NULL AS by_launch, 0::UTINYINT AS variant
                FROM gpu_ops g
                JOIN t_files USING (file_id)
                SEMI JOIN t_classes k USING (file_id, name_id, kind)
                LEFT JOIN t_launch_step ls ON ls.file_id = g.file_id AND ls.correlation = g.correlation
                WHERE g.kind <> 'sync'
                """);
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_launch_windows AS
                SELECT file_id, step, min(ts_ns) AS gpu_start, max(ts_ns + dur_ns) AS gpu_end
                FROM t_ops_core WHERE step IS NOT NULL GROUP BY file_id, step
                """);
        // Only operations in no step so far are looked at: whether their launch is in the trace at all
        // is checked on that (small) set, not joined onto every operation.
        exec(c, """
                UPDATE t_ops_core SET step = w.step
                FROM (
                    SELECT o.file_id, o.ts_ns, o.correlation, w.step
                    FROM (SELECT DISTINCT file_id, ts_ns, correlation FROM t_ops_core o
                          WHERE step IS NULL AND NOT EXISTS (
                              SELECT 1 FROM launches l WHERE l.file_id = o.file_id AND l.correlation = o.correlation)) o
                    ASOF JOIN t_launch_windows w ON o.file_id = w.file_id AND o.ts_ns >= w.gpu_start
                    WHERE o.ts_ns < w.gpu_end
                ) w
                WHERE t_ops_core.file_id = w.file_id AND t_ops_core.ts_ns = w.ts_ns AND t_ops_core.step IS NULL
                  AND t_ops_core.correlation IS NOT DISTINCT FROM w.correlation
                """);
    }

    private static void byTimeOnly(Connection c) throws SQLException {
        exec(c, """
                CREATE OR REPLACE TEMP TABLE t_ops_core AS
                SELECT g.file_id, g.kind, g.name_id, g.stream, g.ts_ns, g.dur_ns, g.correlation, g.external_id,
                       s.step, false AS by_launch, 0::UTINYINT AS variant
                FROM gpu_ops g
                JOIN t_files USING (file_id)
                SEMI JOIN t_classes k USING (file_id, name_id, kind)
                ASOF LEFT JOIN t_steps s ON g.file_id = s.file_id AND g.ts_ns >= s.cpu_start
                WHERE g.kind <> 'sync'
                """);
    }
}
