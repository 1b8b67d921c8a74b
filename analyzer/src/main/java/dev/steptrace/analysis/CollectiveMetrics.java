package dev.steptrace.analysis;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Collective instances, matched across ranks, into working tables {@code t_collectives}, {@code t_step_waits}
 * and {@code t_collective_arrivals}. Rank-local first: every communication kernel of a step, its type,
 * position {@code k} and message size (stage {@code 40-collective-instances}), and what the rank was busy
 * with before it (stage {@code 41-collective-causes}). Then what compares ranks: {@code cross-rank.sql},
 * the one definition the Spark application runs too, over stage {@code 42-cross-rank-inputs}'s views of the
 * working tables; stage {@code 43-cross-rank-results} takes its results back. Collective kernels spin until
 * every peer arrives, so their duration absorbs rank skew: the fastest rank's duration is the transfer,
 * the rest the wait, and the rank with the shortest kernel arrived last (docs/reports.md, "Stragglers").
 */
final class CollectiveMetrics {
    private CollectiveMetrics() {}

    static void build(Connection c) throws SQLException {
        SqlStage.run(c, "40-collective-instances");
        SqlStage.run(c, "41-collective-causes");
        SqlStage.run(c, "42-cross-rank-inputs");
        ViewScript.CROSS_RANK.create(c);
        SqlStage.run(c, "43-cross-rank-results");
    }
}
