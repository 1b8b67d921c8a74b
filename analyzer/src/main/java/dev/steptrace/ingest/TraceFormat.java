package dev.steptrace.ingest;

/** Input formats, as named in report.json's {@code capture.format}. */
public enum TraceFormat {
    KINETO("kineto"),
    /** {@code nsys export --type sqlite}. */
    NSYS_SQLITE("nsys-sqlite"),
    /** {@code nsys export --type parquetdir}: a directory of {@code <TABLE>.parquet} files. */
    NSYS_PARQUET("nsys-parquet"),
    /** {@code nsys export --type arrow}: Arrow IPC streams, one per table. */
    NSYS_ARROW("nsys-arrow");

    private final String id;

    TraceFormat(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public boolean isNsys() {
        return this != KINETO;
    }
}
