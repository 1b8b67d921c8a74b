package dev.steptrace.common;

/** Turning exceptions into the one-line messages users see. */
public final class Messages {
    private Messages() {}

    /** The first line of a message (DuckDB appends the offending SQL and a caret on further lines). */
    public static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    /**
     * A DuckDB error without the JDBC driver's wrapper line ("Attempting to execute an unsuccessful or
     * closed pending query result", which comes first for binder and catalog errors): the lines that say
     * what is wrong ("Binder Error: Referenced column ..."), with DuckDB's hints and caret.
     */
    public static String sqlError(String message) {
        if (message == null) {
            return "";
        }
        String m = message.strip();
        String wrapper = "Attempting to execute an unsuccessful or closed pending query result";
        int nl = m.indexOf('\n');
        if (nl > 0 && m.substring(0, nl).contains(wrapper)) {
            m = m.substring(nl + 1).strip();
        }
        return m.startsWith("Error: ") ? m.substring("Error: ".length()) : m;
    }

    /** Sorted numbers as ranges: {@code [0, 1, 3, 4, 5, 9]} becomes {@code 0, 1, 3-5, 9}. */
    public static String ranges(java.util.List<Integer> sorted) {
        return ranges(sorted, "-");
    }

    /** Sorted numbers as ranges joined by {@code dash}; two neighbours are listed, not joined. */
    public static String ranges(java.util.List<Integer> sorted, String dash) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < sorted.size()) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            sb.append(sb.length() > 0 ? ", " : "").append(sorted.get(i));
            if (j > i) {
                sb.append(j == i + 1 ? ", " : dash).append(sorted.get(j));
            }
            i = j + 1;
        }
        return sb.toString();
    }

    /** Text safe to print on a terminal: control characters (escape sequences among them) become {@code ?}. */
    public static String printable(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> sb.appendCodePoint(Character.isISOControl(cp) ? '?' : cp));
        return sb.toString();
    }
}
