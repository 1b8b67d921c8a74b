package dev.steptrace.timeline;

/**
 * The readable part of a kernel name, for a timeline slice (docs/timeline.md, "Names"): C++ kernel
 * names carry kilobytes of template arguments and a parameter list, and a slice shows only its first
 * few dozen characters. The short name keeps the qualified function name and drops
 * <ol>
 *   <li>the parameter list: the last parenthesized group when the name ends with it (trailing
 *       {@code const} allowed);</li>
 *   <li>template argument lists ({@code <...>}, nested; the {@code >} of {@code ->} closes nothing);</li>
 *   <li>the return type: everything up to the last space outside parentheses ({@code void },
 *       {@code std::enable_if<...>::type }), so {@code (anonymous namespace)} stays whole.</li>
 * </ol>
 * Names that are not C++ signatures (Triton kernels, {@code nvjet_...}, {@code Memcpy DtoH (Device ->
 * Pinned)}) come through unchanged apart from whitespace when they have no parameter list; a name that
 * would become empty stays whole.
 */
final class ShortName {
    private ShortName() {}

    static String of(String name) {
        String s = name.strip().replaceAll("\\s+", " ");
        String shortName = returnTypeDropped(templatesDropped(parametersDropped(s))).strip();
        return shortName.isEmpty() ? s : shortName;
    }

    /** Without the trailing parameter list, found by matching parentheses from the end. */
    private static String parametersDropped(String s) {
        String body = s.endsWith(" const") ? s.substring(0, s.length() - " const".length()) : s;
        if (!body.endsWith(")")) {
            return s;
        }
        int depth = 0;
        for (int i = body.length() - 1; i >= 0; i--) {
            char ch = body.charAt(i);
            if (ch == ')') {
                depth++;
            } else if (ch == '(' && --depth == 0) {
                return i == 0 ? s : body.substring(0, i);
            }
        }
        return s;
    }

    private static String templatesDropped(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int depth = 0;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '<') {
                depth++;
            } else if (ch == '>' && depth > 0 && (i == 0 || s.charAt(i - 1) != '-')) {
                depth--;
            } else if (depth == 0) {
                out.append(ch);
            }
        }
        return depth == 0 ? out.toString() : s;
    }

    private static String returnTypeDropped(String s) {
        int depth = 0;
        int lastSpace = -1;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '(') {
                depth++;
            } else if (ch == ')') {
                depth--;
            } else if (ch == ' ' && depth == 0) {
                lastSpace = i;
            }
        }
        return lastSpace < 0 ? s : s.substring(lastSpace + 1);
    }
}
