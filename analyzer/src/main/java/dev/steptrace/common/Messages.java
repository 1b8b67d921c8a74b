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
}
