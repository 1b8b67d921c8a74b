package dev.steptrace.common;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turning exceptions into the one-line messages users see. */
public final class Messages {
    /** What DuckDB and the operating system say when a file cannot be read or written. */
    private static final Pattern ENVIRONMENT = Pattern.compile("IO Error|No space left on device|File too large"
            + "|Read-only file system|Permission denied|Disk quota exceeded|Input/output error|Could not set lock");

    private Messages() {}

    /**
     * What went wrong with a file, in a few words: Java's file exceptions carry only the path as their
     * message ({@code AccessDeniedException: /x}), the operating system's reason is separate.
     */
    public static String io(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "it exists and is not a directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : firstLine(e.getMessage());
    }

    /**
     * Whether a character would act on a terminal instead of showing: C0 controls but tab and line
     * feed, DEL, C1 controls (a UTF-8 terminal honours them too), and the bidirectional overrides
     * that reorder what is shown.
     */
    public static boolean acts(char c) {
        return (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7F && c <= 0x9F)
                || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
    }

    /**
     * A character that {@link #acts} written out as text: {@code \x1b}, {@code \u009b}, {@code \u202e}. Those
     * JSON may hold raw (all but C0 controls, which it escapes itself) are written as JSON's own escape, so
     * that JSON printed through {@link #printable} stays valid and means the same.
     */
    public static String shown(char c) {
        return c < 0x20 ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c);
    }

    /**
     * Text from a trace (a kernel name, a path) made safe to print: every character that {@link #acts}
     * on a terminal is written out instead ({@code ESC[31m} becomes {@code \x1b[31m}).
     */
    public static String printable(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder sb = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (acts(c)) {
                if (sb == null) {
                    sb = new StringBuilder(text.length() + 8).append(text, 0, i);
                }
                sb.append(shown(c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? text : sb.toString();
    }

    /**
     * Whether a failure comes from the machine, not from steptrace: a file or directory that cannot be
     * read or written, a full disk, a read-only file system, a store locked by another process. The
     * message then says all there is to say.
     */
    public static boolean environmentFault(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof FileSystemException) {
                return true;
            }
            if (c.getMessage() != null && ENVIRONMENT.matcher(c.getMessage()).find()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The most Java heap this process may use, in bytes, as {@code -Xmx} (or the JVM's default) set it:
     * {@code Runtime.maxMemory} leaves a survivor space out under the parallel collector (455 MiB of an
     * {@code -Xmx512m}), which is not the figure a user set or would change.
     */
    public static long maxHeap() {
        try {
            return Long.parseLong(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .getVMOption("MaxHeapSize").getValue());
        } catch (RuntimeException | LinkageError e) {
            // A JVM without HotSpot's bean (OpenJ9 before 21) or without jdk.management (a jlink'd runtime).
            return Runtime.getRuntime().maxMemory();
        }
    }

    /**
     * What to say when the Java heap ran out {@code during} something (" while loading", or ""): the heap as
     * set, and how to give steptrace more (the launcher's collector kept).
     */
    public static String outOfHeap(String during) {
        long heap = maxHeap();
        return "ran out of Java heap (" + xmx(heap) + ")" + during + ": give steptrace more with STEPTRACE_JAVA_OPTS=\""
                + xmx(2 * heap) + " -XX:+UseParallelGC\"";
    }

    /**
     * The exhausted heap behind a failure (itself, or its cause: another thread's, rethrown wrapped), or null.
     * Only the heap: out of native threads, direct buffers or array size, more heap would not help.
     */
    public static OutOfMemoryError heapExhausted(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof OutOfMemoryError oom && (oom.getMessage() == null
                    || oom.getMessage().contains("Java heap space") || oom.getMessage().contains("GC overhead"))) {
                return oom;
            }
        }
        return null;
    }

    /** A heap size as the option that sets it: {@code -Xmx512m}, {@code -Xmx4g}. */
    public static String xmx(long bytes) {
        return bytes % (1L << 30) == 0 ? "-Xmx" + (bytes >> 30) + "g" : "-Xmx" + (bytes >> 20) + "m";
    }

    /** The first line of a message (DuckDB appends the offending SQL and a caret on further lines). */
    /**
     * One line for a file a user gave that does not parse: {@code SOURCE: line L, column C: not valid YAML: PROBLEM}.
     * SnakeYAML marks where the problem is (Jackson's location is where its parser stood) and writes a context
     * ("while parsing a block mapping"), marks with snippets, then the problem ("expected <block end>, but
     * found '-'"): the problem is its last line that is neither indented nor a marker.
     *
     * @param language {@code YAML} or {@code JSON}
     */
    public static String notParsed(String source, String language, JsonProcessingException e) {
        String message = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        JsonLocation loc = e.getLocation();
        String where = loc == null || loc.getLineNr() < 0 ? ""
                : "line " + loc.getLineNr() + (loc.getColumnNr() > 0 ? ", column " + loc.getColumnNr() : "") + ": ";
        Matcher mark = YAML_MARK.matcher(message);
        while (mark.find()) {
            where = "line " + mark.group(1) + ", column " + mark.group(2) + ": ";
        }
        String problem = null;
        for (String line : message.split("\\R")) {
            if (!line.isBlank() && !Character.isWhitespace(line.charAt(0)) && !line.startsWith("^")) {
                problem = line.strip();
            }
        }
        problem = (problem == null ? firstLine(message) : problem).replaceAll(" ?\\(for [^()]*\\[Source:.*$", "")
                .replaceAll("\\[Source:[^\\]]*\\]", "").strip();
        return source + ": " + where + "not valid " + language + (problem.isEmpty() ? "" : ": " + problem);
    }

    private static final Pattern YAML_MARK = Pattern.compile("in '[^']*', line (\\d+), column (\\d+):");

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
}
