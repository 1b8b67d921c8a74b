package dev.steptrace.ingest.rocprof;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The rows of a rocprofv3 CSV file, read one line at a time, with its columns found by header name
 * (rocprofv3 versions add, drop and reorder columns). Fields are comma-separated and may be quoted,
 * with {@code ""} for a quote inside: kernel names hold commas ({@code void f<float>(float*, int)}), and
 * a quoted field may hold line breaks.
 */
final class CsvRows implements Closeable {
    private final BufferedReader in;
    private final Map<String, Integer> columns = new HashMap<>();
    private final List<String> fields = new ArrayList<>();
    private final StringBuilder field = new StringBuilder();
    /** Characters a quoted field may run over line breaks before its quote counts as unterminated. */
    private static final int MAX_QUOTED = 64 * 1024;

    private long line;
    private long rowLine;
    private long bytes;
    private String malformed;

    CsvRows(Path file) throws IOException {
        in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
        String header = in.readLine();
        line = 1;
        if (header != null) {
            bytes += header.length() + 1;
            if (header.startsWith("\uFEFF")) {
                header = header.substring(1);
            }
            List<String> names = split(header);
            String twice = names == null ? null : repeated(names);
            if (twice != null) {
                in.close();
                throw new IOException(file.getFileName() + ": " + ambiguous(twice));
            }
            for (int i = 0; names != null && i < names.size(); i++) {
                columns.put(names.get(i).trim(), i);
            }
        }
    }

    /**
     * A column name that the header holds twice (spaces around it and case aside), or null. Which of the two
     * holds the values is anybody's guess: reading either could give every row wrong times.
     */
    static String repeated(List<String> names) {
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            if (!seen.add(n.trim().toLowerCase(Locale.ROOT))) {
                return n.trim();
            }
        }
        return null;
    }

    /** Why a header with {@code twice} in it is not read. */
    static String ambiguous(String twice) {
        return "the CSV header names the column " + twice + " twice: which one holds its values is ambiguous, not read";
    }

    /** The header's column names of a first line, or null when it is not a well-formed CSV line. */
    static List<String> header(String firstLine) {
        List<String> names = new CsvRows.Splitter().split(firstLine.startsWith("\uFEFF") ? firstLine.substring(1) : firstLine);
        return names == null ? null : names.stream().map(String::trim).toList();
    }

    /** Index of a column, or -1 when the header lacks it. */
    int column(String name) {
        return columns.getOrDefault(name, -1);
    }

    /**
     * Advances to the next non-empty line; false at the end. A line that is not well-formed CSV (an
     * unterminated quote) is still a row: {@link #malformed()} says why, and its fields are not valid.
     */
    boolean next() throws IOException {
        String s;
        do {
            s = in.readLine();
            if (s == null) {
                return false;
            }
            line++;
            bytes += s.length() + 1;
        } while (s.isEmpty());
        rowLine = line;
        List<String> parsed = split(s);
        if (parsed == null) {
            parsed = quotedLineBreaks(s);
        }
        malformed = parsed == null ? "an unterminated quote" : null;
        fields.clear();
        if (parsed != null) {
            fields.addAll(parsed);
        }
        return true;
    }

    /**
     * The fields of a row whose quoted field goes on over the next lines (a name with a line break in it, as
     * CSV allows), or null when its quote is not closed within {@value #MAX_QUOTED} characters: then the
     * lines after it are read as rows of their own again.
     */
    private List<String> quotedLineBreaks(String first) throws IOException {
        in.mark(MAX_QUOTED);
        StringBuilder row = new StringBuilder(first);
        long lines = 0;
        long chars = 0;
        String more;
        while ((more = in.readLine()) != null) {
            lines++;
            chars += more.length() + 1;
            if (chars > MAX_QUOTED) {
                break;
            }
            row.append('\n').append(more);
            List<String> parsed = split(row.toString());
            if (parsed != null) {
                line += lines;
                bytes += chars;
                return parsed;
            }
        }
        try {
            in.reset();
        } catch (IOException e) {
            // Read past what the mark holds (one line longer than the limit): those lines are this row's.
            line += lines;
            bytes += chars;
        }
        return null;
    }

    /** Why the current line is not well-formed CSV, or null. */
    String malformed() {
        return malformed;
    }

    /** The current row's field at {@code column}, or null when the column or the field is missing. */
    String get(int column) {
        return column >= 0 && column < fields.size() ? fields.get(column) : null;
    }

    /** The current row's (first) line number (the header is line 1). */
    long line() {
        return rowLine;
    }

    /** Characters read so far (line ends counted as one), for progress. */
    long charsRead() {
        return bytes;
    }

    private List<String> split(String s) {
        return new Splitter(field).split(s);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** Splits one line into fields; null when a quote is not closed. */
    private static final class Splitter {
        private final StringBuilder field;

        Splitter() {
            this(new StringBuilder());
        }

        Splitter(StringBuilder field) {
            this.field = field;
        }

        List<String> split(String s) {
            List<String> out = new ArrayList<>();
            field.setLength(0);
            boolean quoted = false;
            for (int i = 0; i < s.length(); i++) {
                char ch = s.charAt(i);
                if (quoted) {
                    if (ch == '"') {
                        if (i + 1 < s.length() && s.charAt(i + 1) == '"') {
                            field.append('"');
                            i++;
                        } else {
                            quoted = false;
                        }
                    } else {
                        field.append(ch);
                    }
                } else if (ch == '"') {
                    quoted = true;
                } else if (ch == ',') {
                    out.add(field.toString());
                    field.setLength(0);
                } else {
                    field.append(ch);
                }
            }
            if (quoted) {
                return null;
            }
            out.add(field.toString());
            return out;
        }
    }
}
