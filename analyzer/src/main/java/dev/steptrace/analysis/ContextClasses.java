package dev.steptrace.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.steptrace.classify.Classification;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.store.Sql;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
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
 * for its (file, name, kind) with the refined category, subcategory and rule id.
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
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_refined AS
                SELECT file_id, stream, ts_ns, name_id, kind, ''::VARCHAR AS category, ''::VARCHAR AS subcategory,
                       ''::VARCHAR AS rule_id
                FROM t_ops_core WHERE false
                """);
        moeBlocks(c, taxonomy);
        genericCollectives(c);
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_variants AS
                SELECT (row_number() OVER (ORDER BY category, subcategory, rule_id))::UTINYINT AS variant,
                       category, subcategory, rule_id
                FROM (SELECT DISTINCT category, subcategory, rule_id FROM t_refined)
                """);
        Sql.exec(c, """
                INSERT INTO t_classes (file_id, name_id, kind, category, subcategory, rule_id, variant)
                SELECT DISTINCT r.file_id, r.name_id, r.kind, v.category, v.subcategory, v.rule_id, v.variant
                FROM t_refined r JOIN t_variants v USING (category, subcategory, rule_id)
                """);
        Sql.exec(c, """
                UPDATE t_ops_core SET variant = x.variant
                FROM (SELECT r.file_id, r.stream, r.ts_ns, r.name_id, v.variant
                      FROM t_refined r JOIN t_variants v USING (category, subcategory, rule_id)) x
                WHERE t_ops_core.file_id = x.file_id AND t_ops_core.stream IS NOT DISTINCT FROM x.stream
                  AND t_ops_core.ts_ns = x.ts_ns AND t_ops_core.name_id = x.name_id
                """);
    }

    /** Kernels a context rule decides, where the next GEMM on their stream in their step is an MoE GEMM. */
    private static void moeBlocks(Connection c, Taxonomy taxonomy) throws SQLException {
        if (!taxonomy.hasContextRules()
                || Sql.count(c, "SELECT count(*) FROM t_classes WHERE category = 'moe_gemm'") == 0) {
            return; // no MoE GEMM: no MoE block
        }
        Sql.exec(c, "CREATE OR REPLACE TEMP TABLE t_block_names (name VARCHAR, category VARCHAR, subcategory VARCHAR,"
                + " rule_id VARCHAR)");
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
        // The first GEMM (dense or MoE) to start after each candidate on its stream: an MoE GEMM in the
        // same step puts the candidate between the router GEMM and the experts.
        Sql.exec(c, """
                INSERT INTO t_refined
                WITH cand AS (
                    SELECT o.file_id, o.stream, o.ts_ns, o.name_id, o.kind, o.step, b.category, b.subcategory, b.rule_id
                    FROM t_ops_core o
                    JOIN t_classes k USING (file_id, name_id, kind)
                    JOIN names n USING (file_id, name_id)
                    JOIN t_block_names b ON b.name = n.name
                    WHERE k.variant = 0 AND o.kind = 'kernel' AND o.step IS NOT NULL
                ), gemms AS (
                    SELECT o.file_id, o.stream, o.ts_ns, o.step, k.category = 'moe_gemm' AS moe
                    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind)
                    WHERE k.variant = 0 AND k.category IN ('gemm', 'moe_gemm') AND o.step IS NOT NULL
                )
                SELECT c.file_id, c.stream, c.ts_ns, c.name_id, c.kind, c.category, c.subcategory, c.rule_id
                FROM cand c ASOF JOIN gemms g
                    ON c.file_id = g.file_id AND c.stream IS NOT DISTINCT FROM g.stream AND c.ts_ns < g.ts_ns
                WHERE g.moe AND g.step = c.step
                """);
    }

    /** Launches of generic collective kernels, typed from the CPU op that launched them. */
    private static void genericCollectives(Connection c) throws SQLException {
        if (Sql.count(c, "SELECT count(*) FROM t_classes WHERE rule_id = '" + GENERIC_COLLECTIVE_RULE + "'") == 0) {
            return;
        }
        Sql.exec(c, "CREATE OR REPLACE TEMP MACRO t_collective_type(x) AS " + collectiveType("lower(x)"));
        // Names are typed once (a few thousand), then joined onto the CPU ops that carry them.
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_coll_ops AS
                WITH typed_names AS (
                    SELECT file_id, name_id, t_collective_type(name) AS type
                    FROM names JOIN t_files USING (file_id) WHERE t_collective_type(name) IS NOT NULL
                )
                SELECT o.file_id, o.external_id, t.type
                FROM cpu_ops o JOIN typed_names t USING (file_id, name_id)
                WHERE o.external_id IS NOT NULL AND o.kind = 'cpu_op'
                UNION ALL
                SELECT m.file_id, m.external_id, t_collective_type(m.collective)
                FROM comm_meta m JOIN t_files USING (file_id)
                WHERE m.source = 'cpu_op' AND m.external_id IS NOT NULL AND t_collective_type(m.collective) IS NOT NULL
                """);
        Sql.exec(c, """
                INSERT INTO t_refined
                WITH cand AS (
                    SELECT o.file_id, o.stream, o.ts_ns, o.name_id, o.kind, o.correlation, o.external_id
                    FROM t_ops_core o JOIN t_classes k USING (file_id, name_id, kind)
                    WHERE k.variant = 0 AND k.rule_id = '%s'
                ), own AS (
                    SELECT file_id, correlation, any_value(t_collective_type(collective)) AS type
                    FROM comm_meta JOIN t_files USING (file_id)
                    WHERE source = 'kernel' AND correlation IS NOT NULL AND t_collective_type(collective) IS NOT NULL
                    GROUP BY ALL
                ), by_ext AS (
                    SELECT file_id, external_id, any_value(type) AS type FROM t_coll_ops GROUP BY ALL
                ), by_launch AS (
                    SELECT l.file_id, l.correlation, any_value(e.type) AS type
                    FROM launches l JOIN by_ext e ON e.file_id = l.file_id AND e.external_id = l.external_id
                    WHERE l.correlation IS NOT NULL
                    GROUP BY ALL
                ), typed AS (
                    SELECT c.*, coalesce(own.type, by_ext.type, by_launch.type) AS type
                    FROM cand c
                    LEFT JOIN own ON own.file_id = c.file_id AND own.correlation = c.correlation
                    LEFT JOIN by_ext ON by_ext.file_id = c.file_id AND by_ext.external_id = c.external_id
                    LEFT JOIN by_launch ON by_launch.file_id = c.file_id AND by_launch.correlation = c.correlation
                )
                SELECT file_id, stream, ts_ns, name_id, kind,
                       CASE WHEN type = 'allreduce' THEN 'allreduce' ELSE 'comm_other' END,
                       CASE WHEN type = 'allreduce' THEN 'nccl' ELSE type END,
                       CASE WHEN type = 'allreduce' THEN '%s' ELSE '%s' END
                FROM typed WHERE type IS NOT NULL
                """.formatted(GENERIC_COLLECTIVE_RULE, GENERIC_ALLREDUCE, GENERIC_OTHER));
    }

    /** A SQL CASE that maps {@code expr} (a lower-cased op or collective name) to its collective type, or NULL. */
    private static String collectiveType(String expr) {
        StringBuilder sql = new StringBuilder("CASE");
        for (CollectiveOp op : COLLECTIVE_OPS) {
            sql.append(" WHEN regexp_matches(").append(expr).append(", '").append(op.match().replace("'", "''"))
                    .append("') THEN '").append(op.type()).append('\'');
        }
        return sql.append(" END").toString();
    }

    private static List<CollectiveOp> loadCollectiveOps() {
        try (InputStream in = ContextClasses.class.getResourceAsStream("collective-ops.yaml")) {
            if (in == null) {
                throw new IllegalStateException("missing resource collective-ops.yaml");
            }
            JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(in);
            List<CollectiveOp> ops = new ArrayList<>();
            for (JsonNode n : root.path("collectives")) {
                ops.add(new CollectiveOp(n.path("type").asText(), n.path("match").asText()));
            }
            return List.copyOf(ops);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource collective-ops.yaml", e);
        }
    }
}
