package dev.steptrace.classify;

import dev.steptrace.common.BoundedRegex;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a context rule asks of the launch of a kernel (docs/taxonomy.md, "Classes from the launching op"): a CPU
 * op that encloses its launch call on the launching thread ({@code op}), and/or a user annotation or nn.Module
 * that encloses it ({@code within}). Each pattern is a Java regex, searched in the names, as {@code match} is.
 * A null pattern asks nothing.
 */
public record LaunchMatch(String op, Pattern opPattern, String within, Pattern withinPattern) {

    /** Whether {@code context} has an enclosing op that {@code op} finds and one annotation or module {@code within} finds. */
    public boolean holds(LaunchContext context) {
        return (opPattern == null || any(opPattern, context.ops()))
                && (withinPattern == null || any(withinPattern, context.within()));
    }

    /** Whether the op pattern is found in {@code name} (true without one). */
    public boolean opMatches(String name) {
        return opPattern == null || BoundedRegex.find(opPattern, name);
    }

    /** Whether the within pattern is found in {@code name} (true without one). */
    public boolean withinMatches(String name) {
        return withinPattern == null || BoundedRegex.find(withinPattern, name);
    }

    private static boolean any(Pattern p, List<String> names) {
        for (String n : names) {
            if (BoundedRegex.find(p, n)) {
                return true;
            }
        }
        return false;
    }

    /** The requirement in words, e.g. {@code under an op matching 'X' and within an annotation or module matching 'Y'}. */
    public String describe() {
        StringBuilder s = new StringBuilder();
        if (op != null) {
            s.append("under an op matching '").append(op).append('\'');
        }
        if (within != null) {
            s.append(s.length() > 0 ? " and " : "").append("within an annotation or module matching '").append(within)
                    .append('\'');
        }
        return s.toString();
    }
}
