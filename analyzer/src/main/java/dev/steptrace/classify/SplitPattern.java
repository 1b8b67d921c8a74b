package dev.steptrace.classify;

import dev.steptrace.common.BoundedRegex;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A rule's regex split at its top-level {@code |}, each alternative compiled alone with the runs of plain
 * characters (outside groups and classes) that any of its matches must contain. A name is searched only
 * with the alternatives whose runs it contains all of: {@code String.contains} is much cheaper than a
 * regex scan of an alternation, which tries every alternative at every position of the (often very long,
 * templated) name. The pattern is found in a name exactly when one of its alternatives is, so the answer
 * is the whole regex's.
 *
 * <p>The analysis is conservative: it gives up ({@link #of} returns {@code null}: run the whole regex) on
 * inline flags (but a leading {@code (?i)}), quoting, back references, nested classes, and alternatives
 * without a plain-character run. It only ever skips a search that could not have matched:
 * {@code SplitPatternProperties} checks every built-in rule against its whole regex, and {@code TaxonomyTest}
 * that classifications with and without the split agree.
 */
final class SplitPattern {
    /** A leading {@code (?i)}: Java's, which without {@code u} ignores the case of ASCII letters only. */
    private static final String CASELESS = "(?i)";

    private final Pattern[] alternatives;
    /** Per alternative, every run of plain characters a match of it contains (lower case when caseless). */
    private final String[][] runs;
    private final boolean caseless;

    private SplitPattern(Pattern[] alternatives, String[][] runs, boolean caseless) {
        this.alternatives = alternatives;
        this.runs = runs;
        this.caseless = caseless;
    }

    /** The alternatives of {@code regex} and their runs, or {@code null} when no safe split exists. */
    static SplitPattern of(String pattern) {
        boolean caseless = pattern.startsWith(CASELESS);
        String regex = caseless ? pattern.substring(CASELESS.length()) : pattern;
        List<String[]> runs = new ArrayList<>();
        List<Pattern> alternatives = new ArrayList<>();
        List<String> current = new ArrayList<>();
        StringBuilder run = new StringBuilder();
        boolean lastWasLiteral = false;
        int depth = 0;
        int start = 0;
        int i = 0;
        int n = regex.length();
        while (i <= n) {
            if (i == n || regex.charAt(i) == '|' && depth == 0) {
                if (depth != 0) {
                    return null;
                }
                endRun(current, run);
                if (current.isEmpty()) {
                    return null;
                }
                runs.add(current.stream().map(r -> caseless ? asciiLower(r) : r).toArray(String[]::new));
                alternatives.add(Pattern.compile(regex.substring(start, i), caseless ? Pattern.CASE_INSENSITIVE : 0));
                current.clear();
                lastWasLiteral = false;
                start = ++i;
                continue;
            }
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
                        endRun(current, run);
                    }
                    lastWasLiteral = false;
                } else if (depth == 0) {
                    run.append(e);
                    lastWasLiteral = true;
                }
                continue;
            }
            if (c == '[') {
                int end = classEnd(regex, i);
                if (end < 0) {
                    return null;
                }
                if (depth == 0) {
                    endRun(current, run);
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
                        endRun(current, run);
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
                case '?':
                case '*':
                case '{':
                    if (depth == 0) {
                        if (lastWasLiteral && run.length() > 0) {
                            run.setLength(run.length() - 1); // the quantified character may be absent
                        }
                        endRun(current, run);
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
                        endRun(current, run);
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
        return new SplitPattern(alternatives.toArray(new Pattern[0]), runs.toArray(new String[0][]), caseless);
    }

    /** Whether the regex is found anywhere in {@code name}. */
    boolean find(String name) {
        for (int a = 0; a < alternatives.length; a++) {
            if (containsAll(name, runs[a]) && BoundedRegex.find(alternatives[a], name)) {
                return true;
            }
        }
        return false;
    }

    /** Per alternative, the runs its matches contain (for tests). */
    List<List<String>> runs() {
        List<List<String>> out = new ArrayList<>();
        for (String[] r : runs) {
            out.add(List.of(r));
        }
        return out;
    }

    private boolean containsAll(String name, String[] runs) {
        for (String r : runs) {
            if (caseless ? !containsCaseless(name, r) : !name.contains(r)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code name} contains {@code lowerRun} when ASCII letters are compared in lower case. */
    private static boolean containsCaseless(String name, String lowerRun) {
        int m = lowerRun.length();
        for (int i = 0, last = name.length() - m; i <= last; i++) {
            int j = 0;
            while (j < m && asciiLower(name.charAt(i + j)) == lowerRun.charAt(j)) {
                j++;
            }
            if (j == m) {
                return true;
            }
        }
        return false;
    }

    private static char asciiLower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    private static String asciiLower(String s) {
        char[] c = s.toCharArray();
        for (int i = 0; i < c.length; i++) {
            c[i] = asciiLower(c[i]);
        }
        return new String(c);
    }

    private static void endRun(List<String> runs, StringBuilder run) {
        if (run.length() > 0) {
            runs.add(run.toString());
            run.setLength(0);
        }
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
