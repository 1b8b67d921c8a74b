package dev.steptrace.ingest;

/** Input formats, as named in report.json's {@code capture.format}. */
public enum TraceFormat {
    KINETO("kineto");

    private final String id;

    TraceFormat(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }
}
