package dev.steptrace.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import dev.steptrace.classify.Category;
import dev.steptrace.classify.LaunchMatch;
import dev.steptrace.classify.TaxonomyRule;
import dev.steptrace.classify.Taxonomy;
import dev.steptrace.common.BundledData;
import dev.steptrace.store.QueryFile;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Classes a kernel's name alone cannot settle, given to each operation from what the trace says around
 * it (docs/taxonomy.md, "Classes from context"):
 * <ul>
 *   <li><b>Launching op, annotation, module.</b> A rule with {@code op:} / {@code within:} gives its class to an
 *       operation whose launch call an op, annotation or nn.Module range of those names encloses (stages
 *       {@code 22-launch-contexts} with {@link LaunchContexts}, which also keep what encloses each launch, and
 *       {@code 22-launch-rules}).</li>
 *   <li><b>MoE block.</b> A kernel whose name a {@code context: moe_block} rule matches (torch's softmax,
 *       top-k and sort kernels) takes that rule's class when the next GEMM on its stream, in its step, is
 *       an MoE GEMM: it runs between the router GEMM and the expert GEMMs. Elsewhere (a dense model, a
 *       sampler) the name's own class stands.</li>
 *   <li><b>Generic collectives.</b> NCCL's and RCCL's {@code ncclDevKernel_Generic} runs any collective:
 *       each launch is typed from the collective its launching CPU op names ({@code record_param_comms},
 *       {@code nccl:all_reduce}, {@code c10d::allreduce_}...; the kernel's own args, its External id, or its
 *       runtime call's External id), with the rule ids {@link Taxonomy#GENERIC_ALLREDUCE_RULE} and {@link Taxonomy#GENERIC_OTHER_RULE}.
 *       Launches with no such op (graph replays) keep the name's class.</li>
 * </ul>
 * A refined operation gets {@code t_ops_core.variant} &gt; 0, and {@code t_classes} a row of that variant
 * for its (file, name, kind) with the refined category, subcategory and rule id. The SQL is stages 22-25
 * ({@code analysis/2N-*.sql}); this class gives them what the taxonomy and collective-ops.yaml say.
 */
final class ContextClasses {
    private record CollectiveOp(String type, String match) {}

    private static final List<CollectiveOp> COLLECTIVE_OPS = loadCollectiveOps();

    private ContextClasses() {}

    static void refine(Connection c, Taxonomy taxonomy) throws SQLException {
        SqlStage.run(c, "22-context-classes");
        SqlStage.run(c, "22-launch-contexts");
        LaunchContexts.find(c);
        if (taxonomy.hasLaunchRules() && launchRules(c, taxonomy)) {
            SqlStage.run(c, "22-launch-rules");
        }
        if (taxonomy.hasContextRules() && (classes(c, Category.MOE_GEMM.id(), null) > 0
                || SqlStage.rows(c, "t_refined") > 0)) {
            blockNames(c, taxonomy);
            SqlStage.run(c, "23-moe-blocks");
        }
        if (classes(c, null, Taxonomy.GENERIC_COLLECTIVE_RULE) > 0) {
            collectiveOps(c);
            SqlStage.load("24-generic-collectives").run(c, Map.of("generic_rule", Taxonomy.GENERIC_COLLECTIVE_RULE,
                    "allreduce_rule", Taxonomy.GENERIC_ALLREDUCE_RULE, "other_rule", Taxonomy.GENERIC_OTHER_RULE));
        }
        SqlStage.run(c, "25-class-variants");
    }

    /**
     * Fills the tables of stage 22-launch-rules: the taxonomy's rules with op: / within:, the capture's operation names
     * they may classify, and the capture's names around launches their patterns find. False when no name of the
     * capture may take such a rule, or no name around its launches is one a rule asks for.
     */
    private static boolean launchRules(Connection c, Taxonomy taxonomy) throws SQLException {
        // The names around launches (CPU ops, annotations, modules) are few: which rules' contexts occur at all is
        // known from them first, so that a capture where none does never tests its (possibly millions of) names.
        List<TaxonomyRule> all = taxonomy.rules();
        Map<Integer, TaxonomyRule> launch = new TreeMap<>();
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).byLaunch()) {
                launch.put(i, all.get(i));
            }
        }
        List<List<Object>> found = new ArrayList<>();
        Set<String> sides = new HashSet<>();
        QueryFile.load("work/context-names").run(c, Map.of(), rs -> {
            String name = rs.getString(1);
            boolean op = "op".equals(rs.getString(2));
            for (Map.Entry<Integer, TaxonomyRule> e : launch.entrySet()) {
                LaunchMatch m = e.getValue().launch();
                if (op ? m.op() != null && m.opMatches(name) : m.within() != null && m.withinMatches(name)) {
                    found.add(List.of(name, op ? "op" : "within", e.getKey()));
                    sides.add(e.getKey() + (op ? "op" : "within"));
                }
            }
        });
        Set<Integer> possible = new HashSet<>();
        launch.forEach((i, r) -> {
            if ((r.launch().op() == null || sides.contains(i + "op"))
                    && (r.launch().within() == null || sides.contains(i + "within"))) {
                possible.add(i);
            }
        });
        if (possible.isEmpty()) {
            return false;
        }
        Map<Integer, TaxonomyRule> used = new TreeMap<>();
        List<List<Object>> names = new ArrayList<>();
        QueryFile.load("work/op-names").run(c, Map.of(), rs -> {
            String name = rs.getString(1);
            String kind = rs.getString(2);
            for (Taxonomy.Positioned p : taxonomy.launchRules(name, kind)) {
                if (possible.contains(p.index())) {
                    used.put(p.index(), p.rule());
                    names.add(List.of(name, kind, p.index()));
                }
            }
        });
        if (names.isEmpty()) {
            return false;
        }
        List<List<Object>> marks = found.stream().filter(m -> used.containsKey((Integer) m.get(2))).toList();
        List<List<Object>> rules = new ArrayList<>();
        used.forEach((i, r) -> rules.add(List.of(i, r.launch().op() != null, r.launch().within() != null,
                r.category().id(), r.subcategory(), r.id())));
        SqlStage.fill(c, "t_launch_rules", rules);
        SqlStage.fill(c, "t_launch_rule_names", names);
        SqlStage.fill(c, "t_context_marks", marks);
        return true;
    }

    /** How many of the capture's classes are of {@code category}, or were given by rule {@code ruleId}. */
    private static long classes(Connection c, String category, String ruleId) throws SQLException {
        Map<String, Object> parameters = new HashMap<>();
        parameters.put("category", category);
        parameters.put("rule_id", ruleId);
        return SqlStage.count(c, "class-rows", parameters);
    }

    /** The capture's kernel names a context rule decides, with that rule's class, for stage 23. */
    private static void blockNames(Connection c, Taxonomy taxonomy) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        for (String name : SqlStage.strings(c, "kernel-names")) {
            taxonomy.inMoeBlock(name, "kernel").ifPresent(in -> rows.add(List.of(name, in.categoryId(),
                    in.subcategory(), in.ruleId())));
        }
        SqlStage.fill(c, "t_block_names", rows);
    }

    /** collective-ops.yaml's types and patterns, in its order, for stage 24. */
    private static void collectiveOps(Connection c) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < COLLECTIVE_OPS.size(); i++) {
            rows.add(List.of(i, COLLECTIVE_OPS.get(i).type(), COLLECTIVE_OPS.get(i).match()));
        }
        SqlStage.fill(c, "t_collective_ops", rows);
    }

    private static List<CollectiveOp> loadCollectiveOps() {
        List<CollectiveOp> ops = new ArrayList<>();
        for (JsonNode n : BundledData.yaml(ContextClasses.class, "collective-ops.yaml").path("collectives")) {
            ops.add(new CollectiveOp(n.path("type").asText(), n.path("match").asText()));
        }
        return List.copyOf(ops);
    }
}
