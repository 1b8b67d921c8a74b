package dev.steptrace.testsupport;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a store must hold for a trace, worked out without the reader: a byte-level scan finds every
 * event object of the {@code traceEvents} list and its byte range, Jackson's tree model reads each
 * event alone, and a small table of categories says which events become rows. Tests compare the
 * rows of the events that end before some damage with the rows the real ingest stored.
 */
public final class TraceOracle {
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    /** Categories stored as rows (ph X only), as {@code table/kind}; every other category is dropped. */
    private static final Map<String, String> STORED = new HashMap<>();

    static {
        for (String c : List.of("kernel", "Kernel")) {
            STORED.put(c, "gpu_ops/kernel");
        }
        for (String c : List.of("gpu_memcpy", "Memcpy")) {
            STORED.put(c, "gpu_ops/memcpy");
        }
        for (String c : List.of("gpu_memset", "Memset")) {
            STORED.put(c, "gpu_ops/memset");
        }
        STORED.put("cuda_sync", "gpu_ops/sync");
        for (String c : List.of("cuda_runtime", "Runtime", "xpu_runtime", "mtia_runtime", "privateuse1_runtime")) {
            STORED.put(c, "launches/runtime");
        }
        for (String c : List.of("cuda_driver", "xpu_driver", "privateuse1_driver")) {
            STORED.put(c, "launches/driver");
        }
        for (String c : List.of("cpu_op", "Operator")) {
            STORED.put(c, "cpu_ops/cpu_op");
        }
        for (String c : List.of("user_annotation", "User")) {
            STORED.put(c, "cpu_ops/user_annotation");
        }
        for (String c : List.of("gpu_user_annotation", "gpu_user_Annotation")) {
            STORED.put(c, "cpu_ops/gpu_user_annotation");
        }
    }

    private TraceOracle() {}

    /** One event of the list: bytes [start, end) of the pristine JSON, and its row (null if none). */
    public record Event(int start, int end, String row) {}

    /** A pristine trace and its events. */
    public static final class Trace {
        public final String name;
        public final byte[] json;
        public final List<Event> events;
        /** One past the document's closing brace: a cut at or after it loses nothing. */
        public final int documentEnd;

        Trace(String name, byte[] json, List<Event> events, int documentEnd) {
            this.name = name;
            this.json = json;
            this.events = events;
            this.documentEnd = documentEnd;
        }

        /** Rows (with multiplicity) of the events whose closing brace lies before {@code offset}. */
        public Map<String, Integer> rowsOfEventsEndingBy(long offset) {
            Map<String, Integer> rows = new HashMap<>();
            for (Event e : events) {
                if (e.end() <= offset && e.row() != null) {
                    rows.merge(e.row(), 1, Integer::sum);
                }
            }
            return rows;
        }

        /** Rows (with multiplicity) of the events that start at or after {@code offset}. */
        public Map<String, Integer> rowsOfEventsStartingFrom(long offset) {
            Map<String, Integer> rows = new HashMap<>();
            for (Event e : events) {
                if (e.start() >= offset && e.row() != null) {
                    rows.merge(e.row(), 1, Integer::sum);
                }
            }
            return rows;
        }

        /**
         * The end of the event after the first one that ends after {@code offset}: past the event
         * holding that byte (or the next one, between events) and one more.
         */
        public int endOfEventAfterTheOneEndingAfter(long offset) {
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i).end() > offset) {
                    return i + 1 < events.size() ? events.get(i + 1).end() : events.get(i).end();
                }
            }
            return json.length;
        }

        /** End of the last event that ends at or before {@code offset}, or 0. */
        public int lastEventEndBy(long offset) {
            int last = 0;
            for (Event e : events) {
                if (e.end() <= offset) {
                    last = Math.max(last, e.end());
                }
            }
            return last;
        }

        public int storedRows() {
            return (int) events.stream().filter(e -> e.row() != null).count();
        }

        @Override
        public String toString() {
            return name + " (" + json.length + " bytes, " + events.size() + " events)";
        }
    }

    /** A whole trace. */
    public static Trace of(String name, byte[] json) {
        Scan scan = scan(json, json.length);
        if (scan.listEnd < 0) {
            throw new IllegalArgumentException(name + ": no complete traceEvents list");
        }
        return new Trace(name, json, rows(json, scan.events), scan.documentEnd);
    }

    /**
     * A smaller valid trace made from the start of a large one: its bytes up to the end of the
     * {@code maxEvents}-th event (or the last complete one in {@code prefix}), then the list and the
     * document are closed. Keys written after the list in the original are lost.
     */
    public static Trace slice(String name, byte[] prefix, int maxEvents) {
        Scan scan = scan(prefix, prefix.length);
        if (scan.events.isEmpty()) {
            throw new IllegalArgumentException(name + ": no complete event in the first " + prefix.length + " bytes");
        }
        List<int[]> kept = scan.events.subList(0, Math.min(maxEvents, scan.events.size()));
        int cut = kept.get(kept.size() - 1)[1];
        String close = scan.rootIsArray ? "\n]\n" : "\n  ]\n}\n";
        byte[] json = new byte[cut + close.length()];
        System.arraycopy(prefix, 0, json, 0, cut);
        System.arraycopy(close.getBytes(StandardCharsets.US_ASCII), 0, json, cut, close.length());
        return of(name, json);
    }

    /** The event rows a store holds, keyed like {@link Event#row()}. */
    public static Map<String, Integer> storeRows(Connection c) throws SQLException {
        Map<String, Integer> rows = new HashMap<>();
        String sql = """
                SELECT 'gpu_ops/' || g.kind, n.name, g.ts_ns - f.base_time_ns, g.dur_ns
                FROM gpu_ops g JOIN names n USING (file_id, name_id) JOIN files f USING (file_id)
                UNION ALL
                SELECT 'cpu_ops/' || x.kind, n.name, x.ts_ns - f.base_time_ns, x.dur_ns
                FROM cpu_ops x JOIN names n USING (file_id, name_id) JOIN files f USING (file_id)
                UNION ALL
                SELECT 'launches/' || l.kind, n.name, l.ts_ns - f.base_time_ns, l.dur_ns
                FROM launches l JOIN names n USING (file_id, name_id) JOIN files f USING (file_id)""";
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.merge(row(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4)), 1, Integer::sum);
            }
        }
        return rows;
    }

    /** Rows of {@code expected} that {@code actual} lacks (with multiplicity), for a failure message. */
    public static List<String> missing(Map<String, Integer> expected, Map<String, Integer> actual) {
        List<String> out = new ArrayList<>();
        expected.forEach((row, n) -> {
            int have = actual.getOrDefault(row, 0);
            for (int i = have; i < n; i++) {
                out.add(row.replace('\u0000', ' '));
            }
        });
        Collections.sort(out);
        return out;
    }

    public static int total(Map<String, Integer> rows) {
        return rows.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Reads a whole stream (e.g. a GZIPInputStream) as far as it goes: a truncated gzip yields what survives. */
    public static byte[] readAsFarAsPossible(InputStream in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
        } catch (IOException expected) {
            // the damage: everything before it is in `out`
        }
        return out.toByteArray();
    }

    private static String row(String tableKind, String name, long tsNs, long durNs) {
        return tableKind + '\u0000' + name + '\u0000' + tsNs + '\u0000' + durNs;
    }

    private static List<Event> rows(byte[] json, List<int[]> spans) {
        List<Event> out = new ArrayList<>(spans.size());
        for (int[] s : spans) {
            JsonNode e;
            try {
                e = MAPPER.readTree(Arrays.copyOfRange(json, s[0], s[1]));
            } catch (IOException ex) {
                throw new IllegalArgumentException("event at byte " + s[0] + " is not JSON: " + ex.getMessage(), ex);
            }
            out.add(new Event(s[0], s[1], rowOf(e)));
        }
        return out;
    }

    private static String rowOf(JsonNode e) {
        if (!"X".equals(e.path("ph").asText(null))) {
            return null;
        }
        String tableKind = STORED.get(e.path("cat").asText(""));
        if (tableKind == null) {
            return null;
        }
        Long ts = nanos(e.get("ts"));
        if (ts == null) {
            return null;
        }
        Long dur = nanos(e.get("dur"));
        JsonNode name = e.get("name");
        return row(tableKind, name == null ? "" : name.asText(), ts, dur == null ? 0 : Math.max(0, dur));
    }

    /** Microseconds (number or numeric string) to nanoseconds, half-up; null when not a finite number. */
    private static Long nanos(JsonNode v) {
        if (v == null || !(v.isNumber() || v.isTextual())) {
            return null;
        }
        try {
            BigDecimal us = v.isNumber() ? v.decimalValue() : new BigDecimal(v.asText().trim());
            return us.movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
        } catch (NumberFormatException | ArithmeticException ex) {
            return null;
        }
    }

    private record Scan(boolean rootIsArray, List<int[]> events, int listEnd, int documentEnd) {}

    /**
     * Finds the event objects of the trace's event list: the root array, or the array under the root
     * object's key {@code traceEvents}. Strings and escapes are skipped, so braces in names do not count.
     */
    private static Scan scan(byte[] b, int len) {
        List<int[]> events = new ArrayList<>();
        int depth = 0;
        int listDepth = -1;
        boolean rootIsArray = false;
        boolean first = true;
        int eventStart = -1;
        int listEnd = -1;
        int documentEnd = -1;
        String lastString = null;
        String key = null;
        for (int i = 0; i < len; i++) {
            int c = b[i] & 0xFF;
            if (c == '"') {
                int start = i + 1;
                i++;
                while (i < len && b[i] != '"') {
                    if (b[i] == '\\') {
                        i++;
                    }
                    i++;
                }
                lastString = depth == 1 && i - start < 32 ? new String(b, start, Math.min(i, len) - start,
                        StandardCharsets.UTF_8) : null;
                continue;
            }
            switch (c) {
                case ':':
                    if (depth == 1) {
                        key = lastString;
                    }
                    break;
                case '[':
                    if (first) {
                        rootIsArray = true;
                        listDepth = 1;
                    } else if (depth == 1 && "traceEvents".equals(key) && listDepth < 0) {
                        listDepth = 2;
                    }
                    depth++;
                    break;
                case '{':
                    depth++;
                    if (depth == listDepth + 1) {
                        eventStart = i;
                    }
                    break;
                case '}':
                    if (depth == listDepth + 1 && eventStart >= 0) {
                        events.add(new int[] {eventStart, i + 1});
                        eventStart = -1;
                    }
                    depth--;
                    if (depth == 0) {
                        documentEnd = i + 1;
                    }
                    break;
                case ']':
                    if (depth == listDepth) {
                        listEnd = i;
                        listDepth = Integer.MIN_VALUE;
                    }
                    depth--;
                    if (depth == 0) {
                        documentEnd = i + 1;
                    }
                    break;
                default:
                    break;
            }
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                first = false;
            }
        }
        return new Scan(rootIsArray, events, listEnd, documentEnd);
    }
}
