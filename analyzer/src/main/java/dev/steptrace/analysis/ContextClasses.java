package dev.steptrace.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.classify.Classification;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.common.BundledData;
import dev.steptrace.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Classes a kernel's name alone cannot settle, given to each operation from what the trace says around
 * it (docs/taxonomy.md, "Classes from context"):
 * <ul>
 *   <li><b>MoE block.</b> A kernel whose name a {@code context: moe_block} rule matches (torch's softmax,
 *       top-k and sort kernels) takes that rule's class when the next GEMM on its stream, in its step, is
 *       an MoE GEMM: it runs between the router GEMM and the expert GEMMs. Elsewhere (a dense model, a
 *       sampler) the name's own class stands.</li>
 *   <li><b>Generic collectives.</b> NCCL's and RCCL's {@code ncclDevKernel_Generic} runs any collective:
 *       each launch is typed from the collective its launching CPU op names ({@code record_param_comms},
 *       {@code nccl:all_reduce}, {@code c10d::allreduce_}...; the kernel's own args, its External id, or its
 *       runtime call's External id), with the rule ids {@link #GENERIC_ALLREDUCE} and {@link #GENERIC_OTHER}.
 *       Launches with no such op (graph replays) keep the name's class.</li>
 * </ul>
 * A refined operation gets {@code t_ops_core.variant} &gt; 0, and {@code t_classes} a row of that variant
 * for its (file, name, kind) with the refined category, subcategory and rule id. The SQL is stages 22-25
 * ({@code analysis/2N-*.sql}); this class gives them what the taxonomy and collective-ops.yaml say.
 */
final class ContextClasses {
    /** The taxonomy rule whose kernels run any collective. */
    static final String GENERIC_COLLECTIVE_RULE = "comm.nccl.generic";
    static final String GENERIC_ALLREDUCE = "allreduce.nccl_generic.by_cpu_op";
    static final String GENERIC_OTHER = "comm_other.nccl_generic.by_cpu_op";

    private record CollectiveOp(String type, String match) {}

    private static final List<CollectiveOp> COLLECTIVE_OPS = loadCollectiveOps();

    private ContextClasses() {}

    static void refine(Connection c, Taxonomy taxonomy) throws SQLException {
        SqlStage.run(c, "22-context-classes");
        if (taxonomy.hasContextRules() && Sql.count(c, "SELECT count(*) FROM t_classes WHERE category = 'moe_gemm'") > 0) {
            blockNames(c, taxonomy);
            SqlStage.run(c, "23-moe-blocks");
        }
        if (Sql.count(c, "SELECT count(*) FROM t_classes WHERE rule_id = '" + GENERIC_COLLECTIVE_RULE + "'") > 0) {
            collectiveOps(c);
            SqlStage.load("24-generic-collectives").run(c, Map.of("generic_rule", GENERIC_COLLECTIVE_RULE,
                    "allreduce_rule", GENERIC_ALLREDUCE, "other_rule", GENERIC_OTHER));
        }
        SqlStage.run(c, "25-class-variants");
    }

    /** The capture's kernel names a context rule decides, with that rule's class, for stage 23. */
    private static void blockNames(Connection c, Taxonomy taxonomy) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT DISTINCT n.name FROM t_classes k JOIN names n USING (file_id, name_id)"
                     + " WHERE k.kind = 'kernel' AND k.variant = 0");
             PreparedStatement ins = c.prepareStatement("INSERT INTO t_block_names VALUES (?, ?, ?, ?)")) {
            while (rs.next()) {
                Optional<Classification> inBlock = taxonomy.inMoeBlock(rs.getString(1), "kernel");
                if (inBlock.isPresent()) {
                    ins.setString(1, rs.getString(1));
                    ins.setString(2, inBlock.get().categoryId());
                    ins.setString(3, inBlock.get().subcategory());
                    ins.setString(4, inBlock.get().ruleId());
                    ins.addBatch();
                }
            }
            ins.executeBatch();
        }
    }

    /** collective-ops.yaml's types and patterns, in its order, for stage 24. */
    private static void collectiveOps(Connection c) throws SQLException {
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO t_collective_ops VALUES (?, ?, ?)")) {
            for (int i = 0; i < COLLECTIVE_OPS.size(); i++) {
                ins.setInt(1, i);
                ins.setString(2, COLLECTIVE_OPS.get(i).type());
                ins.setString(3, COLLECTIVE_OPS.get(i).match());
                ins.addBatch();
            }
            ins.executeBatch();
        }
    }

    private static List<CollectiveOp> loadCollectiveOps() {
        List<CollectiveOp> ops = new ArrayList<>();
        for (JsonNode n : BundledData.yaml(ContextClasses.class, "collective-ops.yaml").path("collectives")) {
            ops.add(new CollectiveOp(n.path("type").asText(), n.path("match").asText()));
        }
        return List.copyOf(ops);
    }
}
