package dev.steptrace.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** A list of numbers as a user writes it on the command line: {@code 3}, {@code 0-7}, {@code 1,4,9-11}. */
final class NumberList {
    /** More numbers than any capture has steps or ranks: a guard against {@code 0-2000000000}. */
    private static final int MAX_VALUES = 1 << 20;

    private NumberList() {}

    /**
     * The numbers, sorted, without repeats.
     *
     * @throws IllegalArgumentException when the text is not such a list (the message says why)
     */
    static List<Integer> parse(String text) {
        TreeSet<Integer> values = new TreeSet<>();
        for (String part : text.split(",", -1)) {
            String p = part.strip();
            int dash = p.indexOf('-', 1);
            int from;
            int to;
            try {
                from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).strip());
                to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1).strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a list of numbers and ranges like 3, 0-7 or 1,4,9-11");
            }
            if (from < 0 || to < from) {
                throw new IllegalArgumentException("'" + p + "' is not a range of numbers from 0 up");
            }
            if ((long) to - from + values.size() >= MAX_VALUES) {
                throw new IllegalArgumentException("'" + text + "' names more than " + MAX_VALUES + " numbers");
            }
            for (int v = from; v <= to; v++) {
                values.add(v);
            }
        }
        return new ArrayList<>(values);
    }
}
