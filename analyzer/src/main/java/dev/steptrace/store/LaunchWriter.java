package dev.steptrace.store;

/**
 * One file's rows of {@code launches} (docs/schema.md), as every importer writes runtime and driver calls:
 * {@link #start}, the optional columns it knows, then {@link #end}.
 */
public final class LaunchWriter extends EventWriter {
    /** The {@code launch_kind} labels. */
    public enum Kind { RUNTIME, DRIVER }

    private final int[] kinds;
    private final int pid;
    private final int tid;
    private final int correlation;
    private final int externalId;
    private final int cbid;

    public LaunchWriter(TableBatch batch, int fileId) {
        super(batch, fileId);
        kinds = kindCodes(Kind.values());
        pid = batch.column("pid");
        tid = batch.column("tid");
        correlation = batch.column("correlation");
        externalId = batch.column("external_id");
        cbid = batch.column("cbid");
    }

    /** Begins a row: a call of {@code kind} named {@code nameId} (a {@code names} id of the file). */
    public void start(Kind kind, int nameId, long tsNs, long durNs) {
        begin(kinds[kind.ordinal()], nameId, tsNs, durNs);
    }

    public void pid(long value) {
        batch.setLong(pid, value);
    }

    public void tid(long value) {
        batch.setLong(tid, value);
    }

    public void correlation(long value) {
        batch.setLong(correlation, value);
    }

    public void externalId(long value) {
        batch.setLong(externalId, value);
    }

    public void cbid(int value) {
        batch.setInt(cbid, value);
    }
}
