package dev.steptrace.analysis;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Collective instances into temp table {@code t_collectives}: every communication kernel (category
 * allreduce or comm_other) in a step, its type, its position {@code k} among the step's collectives
 * of that type, its message size when the trace records it, and — matched across ranks by (phase,
 * step of the phase, type, k) — the fastest rank's duration ({@code transfer_ns}) and this rank's
 * time beyond it ({@code wait_ns}). Collective kernels spin until every peer arrives, so their
 * duration absorbs rank skew; the fastest rank's duration is the best estimate of the transfer. The SQL is stage {@code 40-collective-matching}.
 */
final class CollectiveMetrics {
    private CollectiveMetrics() {}

    static void build(Connection c) throws SQLException {
        SqlStage.run(c, "40-collective-matching");
    }
}
