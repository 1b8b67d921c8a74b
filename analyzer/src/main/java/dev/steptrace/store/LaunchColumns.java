package dev.steptrace.store;

/**
 * Where the columns of {@code launches} are in a {@link TableBatch} for it, and the codes of its kind
 * labels: what every importer that writes runtime and driver calls looks up once per file.
 */
public final class LaunchColumns extends EventColumns {
    public final int pid;
    public final int tid;
    public final int correlation;
    public final int externalId;
    public final int cbid;
    /** Codes of the kind labels, for {@link TableBatch#setEnum}. */
    public final int runtime;
    public final int driver;

    public LaunchColumns(TableBatch b) {
        super(b);
        pid = b.column("pid");
        tid = b.column("tid");
        correlation = b.column("correlation");
        externalId = b.column("external_id");
        cbid = b.column("cbid");
        runtime = b.enumCode(kind, "runtime");
        driver = b.enumCode(kind, "driver");
    }
}
