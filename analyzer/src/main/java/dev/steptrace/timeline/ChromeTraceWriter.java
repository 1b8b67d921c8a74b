package dev.steptrace.timeline;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Trace Event Format events, streamed through Jackson's generator (docs/timeline.md, "Format"):
 * complete events ({@code X}), metadata events ({@code M}: process and thread names and sort
 * order) and flow events ({@code s}, {@code t}, {@code f}). Times are nanoseconds from the file's
 * origin, written as microseconds with three decimals from their digits (exact, no double in
 * between).
 */
final class ChromeTraceWriter implements AutoCloseable {
    private static final JsonFactory FACTORY = new JsonFactory();

    private final JsonGenerator json;
    private long events;
    private boolean argsOpen;

    /** Starts the document; {@code gzip} compresses it. The caller writes its top-level fields next. */
    ChromeTraceWriter(OutputStream out, boolean gzip) throws IOException {
        OutputStream buffered = new BufferedOutputStream(gzip ? new GZIPOutputStream(out, 1 << 16) : out, 1 << 16);
        json = FACTORY.createGenerator(buffered, JsonEncoding.UTF8);
        json.writeStartObject();
    }

    /** The generator, for top-level fields before {@link #startEvents()}. */
    JsonGenerator json() {
        return json;
    }

    void startEvents() throws IOException {
        json.writeArrayFieldStart("traceEvents");
    }

    long events() {
        return events;
    }

    /** Opens a complete event; write its args with {@link #args()}, then {@link #end()}. */
    void complete(int pid, int tid, String cat, String name, long tsNs, long durNs, String cname) throws IOException {
        json.writeStartObject();
        json.writeStringField("ph", "X");
        json.writeStringField("cat", cat);
        json.writeStringField("name", name);
        json.writeNumberField("pid", pid);
        json.writeNumberField("tid", tid);
        json.writeFieldName("ts");
        json.writeNumber(micros(tsNs));
        json.writeFieldName("dur");
        json.writeNumber(micros(durNs));
        if (cname != null) {
            json.writeStringField("cname", cname);
        }
    }

    /** The open event's {@code args} object. */
    JsonGenerator args() throws IOException {
        if (!argsOpen) {
            json.writeObjectFieldStart("args");
            argsOpen = true;
        }
        return json;
    }

    /** Closes the open event. */
    void end() throws IOException {
        if (argsOpen) {
            json.writeEndObject();
            argsOpen = false;
        }
        json.writeEndObject();
        events++;
    }

    void processName(int pid, String name, int sortIndex) throws IOException {
        metadata(pid, null, "process_name", "name", name);
        metadata(pid, null, "process_sort_index", "sort_index", sortIndex);
    }

    void threadName(int pid, int tid, String name, int sortIndex) throws IOException {
        metadata(pid, tid, "thread_name", "name", name);
        metadata(pid, tid, "thread_sort_index", "sort_index", sortIndex);
    }

    private void metadata(int pid, Integer tid, String event, String key, Object value) throws IOException {
        json.writeStartObject();
        json.writeStringField("ph", "M");
        json.writeStringField("name", event);
        json.writeNumberField("pid", pid);
        if (tid != null) {
            json.writeNumberField("tid", tid);
        }
        json.writeObjectFieldStart("args");
        if (value instanceof Integer i) {
            json.writeNumberField(key, i);
        } else {
            json.writeStringField(key, (String) value);
        }
        json.writeEndObject();
        json.writeEndObject();
        events++;
    }

    /**
     * One point of a flow: {@code s} starts it, {@code t} steps through, {@code f} ends it. Each binds
     * to the slice enclosing {@code tsNs} on its thread ({@code "bp": "e"}).
     */
    void flow(char phase, int pid, int tid, String cat, String name, long id, long tsNs) throws IOException {
        json.writeStartObject();
        json.writeStringField("ph", String.valueOf(phase));
        json.writeStringField("cat", cat);
        json.writeStringField("name", name);
        json.writeNumberField("id", id);
        json.writeNumberField("pid", pid);
        json.writeNumberField("tid", tid);
        json.writeFieldName("ts");
        json.writeNumber(micros(tsNs));
        if (phase != 's') {
            json.writeStringField("bp", "e");
        }
        json.writeEndObject();
        events++;
    }

    /** Ends the event list and the document, and closes the stream. */
    @Override
    public void close() throws IOException {
        try (json) {
            json.writeEndArray();
            json.writeEndObject();
        }
    }

    /** Nanoseconds as microseconds with three decimals: {@code 1234567} is {@code 1234.567}. */
    static String micros(long ns) {
        long abs = Math.abs(ns);
        long frac = abs % 1000;
        return (ns < 0 ? "-" : "") + abs / 1000 + (frac < 10 ? ".00" : frac < 100 ? ".0" : ".") + frac;
    }
}
