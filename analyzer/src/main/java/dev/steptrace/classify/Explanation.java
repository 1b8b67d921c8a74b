package dev.steptrace.classify;

import java.util.List;

/**
 * Why a name got its classification: the rule that matched and, for every earlier rule, why it did not.
 *
 * @param name    the name explained
 * @param kind    the event kind it was explained for
 * @param matched the first rule that matched
 * @param index   that rule's 1-based position in the rule list
 * @param earlier every rule before it, with the reason it did not match
 * @param inMoeBlock the first earlier rule that matches but needs an MoE block: the class there (null if none)
 * @param context the launch context explained with ({@link LaunchContext#NONE} for the name alone)
 */
public record Explanation(String name, String kind, TaxonomyRule matched, int index, List<Miss> earlier, Miss inMoeBlock,
                          LaunchContext context) {

    public Explanation {
        earlier = List.copyOf(earlier);
    }

    /** Why an earlier rule did not decide. */
    public enum Reason {
        /** The rule is for other event kinds (e.g. a memcpy rule, for a kernel). */
        OTHER_KIND,
        /** The rule's pattern is found, but the rule applies only in a context (an MoE block). */
        NEEDS_CONTEXT,
        /** The rule's pattern is not found in the name. */
        NO_MATCH;

        public String describe(TaxonomyRule rule, String kind) {
            switch (this) {
                case OTHER_KIND:
                    return "applies to " + String.join(",", rule.kinds()) + ", not " + kind;
                case NEEDS_CONTEXT:
                    return "matches, but only decides " + rule.contextText() + " (" + rule.category().id() + "/"
                            + rule.subcategory() + " there)";
                default:
                    return "pattern not found in the name";
            }
        }
    }

    /** An earlier rule that did not match, with its 1-based position. */
    public record Miss(int index, TaxonomyRule rule, Reason reason) {
    }

    public Classification classification() {
        return matched.classification();
    }

    /** The earlier rules that match the name but decide only in a launch context they did not have. */
    public List<Miss> launchRules() {
        return earlier.stream().filter(m -> m.reason() == Reason.NEEDS_CONTEXT && m.rule().byLaunch()).toList();
    }
}
