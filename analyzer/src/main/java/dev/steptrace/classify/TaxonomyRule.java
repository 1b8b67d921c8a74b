package dev.steptrace.classify;

import dev.steptrace.common.BoundedRegex;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One classification rule: the first rule (in order) whose {@link #kinds} include the event's kind
 * and whose pattern is found anywhere in the name decides the name's category.
 *
 * @param id          stable dotted id, e.g. {@code comm.custom_allreduce.vllm}; travels with every classified name
 * @param match       the Java regex as written in the rule file (searched, not anchored)
 * @param pattern     {@code match}, compiled once
 * @param kinds       event kinds the rule applies to ({@code kernel}, {@code memcpy}, {@code memset})
 * @param category    headline category
 * @param subcategory finer bucket within the category (nccl, custom, marlin_moe, norm, ...)
 * @param context     null for a rule the name alone decides; {@link #MOE_BLOCK} for one that applies only to
 *                    a kernel the analysis finds inside an MoE block (docs/taxonomy.md, "Classes from context")
 * @param launch      null, or what a context rule asks of the kernel's launch: an enclosing CPU op and/or annotation or
 *                    module ({@link LaunchMatch}); such a rule decides only where its launch has that context
 * @param source      where the name comes from (a file of a repository, a trace)
 * @param note        optional free text shown by {@code steptrace taxonomy --explain}
 * @param origin      the file the rule was read from ({@link Taxonomy#BUILT_IN} for the shipped rules)
 */
public record TaxonomyRule(String id, String match, Pattern pattern, List<String> kinds, Category category,
                   String subcategory, String context, LaunchMatch launch, String source, String note, String origin) {

    public static final String KERNEL = "kernel";
    public static final String MEMCPY = "memcpy";
    public static final String MEMSET = "memset";
    /** Every event kind a rule can name, in the order messages list them. */
    public static final List<String> KINDS = List.of(KERNEL, MEMCPY, MEMSET);
    /** The kinds of a rule that does not say. */
    public static final List<String> DEFAULT_KINDS = List.of(KERNEL);
    /** The one context a rule can require: the kernel runs before an MoE GEMM (docs/taxonomy.md). */
    public static final String MOE_BLOCK = "moe_block";

    public TaxonomyRule {
        kinds = List.copyOf(kinds);
    }

    /** Whether the name alone decides (no context is required). */
    public boolean byNameAlone() {
        return context == null && launch == null;
    }

    /** Whether the rule decides by the context of the kernel's launch (an enclosing op, annotation or module). */
    public boolean byLaunch() {
        return launch != null;
    }

    /** The context the rule needs, in words: the launch's, or inside an MoE block. */
    public String contextText() {
        return launch != null ? launch.describe() : "inside an MoE block";
    }

    /** Whether this rule is considered for events of {@code kind}. */
    public boolean appliesTo(String kind) {
        return kinds.contains(kind);
    }

    /** Whether the pattern is found anywhere in {@code name}. */
    public boolean matchesName(String name) {
        return BoundedRegex.find(pattern, name);
    }

    /** Whether this rule classifies {@code name} of {@code kind}. */
    public boolean matches(String name, String kind) {
        return appliesTo(kind) && matchesName(name);
    }

    public Classification classification() {
        return new Classification(category, subcategory, id);
    }
}
