package dev.steptrace.classify;

import java.util.ArrayList;
import java.util.List;

/**
 * A cheap pre-check for a rule's regex: for each top-level alternative of the pattern, the longest run
 * of plain characters that any match of that alternative must contain. A name that contains none of
 * them cannot match, so the regex (which would scan the whole, often very long, templated name once per
 * rule) is skipped. {@code String.contains} is much faster than a regex scan of an alternation.
 *
 * <p>The analysis is conservative: it gives up (returns {@code null}, meaning "always run the regex")
 * on inline flags, quoting, nested classes, and alternatives without a plain-character run outside
 * groups. It only ever skips a regex that could not have matched; {@code TaxonomyTest} checks that
 * classifications with and without it agree.
 */
final class RequiredLiterals {
    private RequiredLiterals() {}

    /** One required literal per top-level alternative, or {@code null} when no safe pre-check exists. */
    static String[] of(String regex) {
        List<String> result = new ArrayList<>();
        StringBuilder run = new StringBuilder();
        String best = "";
        boolean lastWasLiteral = false;
        int depth = 0;
        int i = 0;
        int n = regex.length();
        while (i < n) {
            char c = regex.charAt(i);
            if (c == '\\') {
                if (i + 1 >= n) {
                    return null;
                }
                char e = regex.charAt(i + 1);
                i += 2;
                if (Character.isLetterOrDigit(e)) {
                    // Classes (\d \w \s), anchors (\b \A \z), back references and escapes with arguments.
                    if ("pPxuNkcQEgRX0123456789".indexOf(e) >= 0) {
                        return null;
                    }
                    if (depth == 0) {
                        best = longer(best, run);
                        run.setLength(0);
                    }
                    lastWasLiteral = false;
                } else {
                    if (depth == 0) {
                        run.append(e);
                        lastWasLiteral = true;
                    }
                }
                continue;
            }
            if (c == '[') {
                int end = classEnd(regex, i);
                if (end < 0) {
                    return null;
                }
                if (depth == 0) {
                    best = longer(best, run);
                    run.setLength(0);
                }
                lastWasLiteral = false;
                i = end + 1;
                continue;
            }
            switch (c) {
                case '(':
                    if (i + 1 < n && regex.charAt(i + 1) == '?' && i + 2 < n) {
                        char k = regex.charAt(i + 2);
                        boolean group = k == ':' || k == '=' || k == '!' || k == '<' || k == '>';
                        if (!group) {
                            return null; // inline flags such as (?i) change what the literals mean
                        }
                    }
                    if (depth == 0) {
                        best = longer(best, run);
                        run.setLength(0);
                    }
                    depth++;
                    lastWasLiteral = false;
                    break;
                case ')':
                    depth--;
                    if (depth < 0) {
                        return null;
                    }
                    lastWasLiteral = false;
                    break;
                case '|':
                    if (depth == 0) {
                        best = longer(best, run);
                        run.setLength(0);
                        if (best.isEmpty()) {
                            return null;
                        }
                        result.add(best);
                        best = "";
                    }
                    lastWasLiteral = false;
                    break;
                case '?':
                case '*':
                case '{':
                    if (depth == 0) {
                        if (lastWasLiteral && run.length() > 0) {
                            run.setLength(run.length() - 1); // the quantified character may be absent
                        }
                        best = longer(best, run);
                        run.setLength(0);
                    }
                    if (c == '{') {
                        int close = regex.indexOf('}', i);
                        if (close < 0) {
                            return null;
                        }
                        i = close;
                    }
                    lastWasLiteral = false;
                    break;
                case '+':
                case '.':
                case '^':
                case '$':
                    if (depth == 0) {
                        best = longer(best, run);
                        run.setLength(0);
                    }
                    lastWasLiteral = false;
                    break;
                default:
                    if (depth == 0) {
                        run.append(c);
                        lastWasLiteral = true;
                    }
            }
            i++;
        }
        if (depth != 0) {
            return null;
        }
        best = longer(best, run);
        if (best.isEmpty()) {
            return null;
        }
        result.add(best);
        return result.toArray(new String[0]);
    }

    /** Whether {@code name} contains one of {@code literals}. */
    static boolean anyIn(String[] literals, String name) {
        for (String l : literals) {
            if (name.contains(l)) {
                return true;
            }
        }
        return false;
    }

    private static String longer(String best, CharSequence run) {
        return run.length() > best.length() ? run.toString() : best;
    }

    /** Index of the ']' closing the class opened at {@code start}, or -1 for constructs not handled. */
    private static int classEnd(String regex, int start) {
        int i = start + 1;
        if (i < regex.length() && regex.charAt(i) == '^') {
            i++;
        }
        if (i < regex.length() && regex.charAt(i) == ']') {
            return -1;
        }
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i += 2;
                continue;
            }
            if (c == '[') {
                return -1; // nested classes and intersections
            }
            if (c == ']') {
                return i;
            }
            i++;
        }
        return -1;
    }
}
