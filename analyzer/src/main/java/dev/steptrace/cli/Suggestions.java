package dev.steptrace.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The names a mistyped command or option was likely meant for ({@code reprot}: report; {@code --ouput}: --out):
 * those nearest by edit distance, a swap of two neighbouring letters counting as one edit, when at most two edits
 * away (one for three letters or fewer); else the names that begin with what was typed, or that it begins with.
 */
final class Suggestions {
    private static final int MAX_EDITS = 2;
    private static final int MAX_SUGGESTIONS = 3;

    private Suggestions() {}

    /** For an unknown argument of {@code spec}'s command: its subcommands, or its options for an option. */
    static List<String> forArgument(CommandSpec spec, String argument) {
        if (argument.startsWith("-")) {
            String typed = argument.contains("=") ? argument.substring(0, argument.indexOf('=')) : argument;
            List<String> names = new ArrayList<>();
            for (OptionSpec option : spec.options()) {
                if (!option.hidden()) {
                    for (String name : option.names()) {
                        if (name.startsWith("--") == typed.startsWith("--")) {
                            names.add(name);
                        }
                    }
                }
            }
            return closest(typed, names);
        }
        return closest(argument, new ArrayList<>(spec.subcommands().keySet()));
    }

    static List<String> closest(String typed, List<String> names) {
        String t = strip(typed);
        int best = t.length() <= 3 ? 1 : MAX_EDITS;
        List<String> found = new ArrayList<>();
        for (String name : names) {
            int d = edits(t, strip(name));
            if (d > best) {
                continue;
            }
            if (d < best || found.isEmpty()) {
                best = d;
                found.clear();
            }
            if (d == best && !found.contains(name)) {
                found.add(name);
            }
        }
        if (found.isEmpty() && t.length() >= 3) {
            for (String name : names) {
                String n = strip(name);
                if (n.length() >= 3 && (n.startsWith(t) || t.startsWith(n)) && !found.contains(name)) {
                    found.add(name);
                }
            }
            found.sort(Comparator.comparingInt(n -> Math.abs(strip(n).length() - t.length())));
        }
        return found.subList(0, Math.min(MAX_SUGGESTIONS, found.size()));
    }

    private static String strip(String name) {
        int i = 0;
        while (i < name.length() && name.charAt(i) == '-') {
            i++;
        }
        return name.substring(i).toLowerCase(Locale.ROOT);
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
    static int edits(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
