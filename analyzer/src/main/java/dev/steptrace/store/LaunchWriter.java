package dev.steptrace.store;

/**
 * One file's rows of {@code launches} (docs/schema.md), as every importer writes runtime and driver calls:
 * {@link #start}, the optional columns it knows, then {@link #end}.
 */
public final class LaunchWriter extends HostEventWriter<LaunchWriter.Kind> {
    /** The {@code launch_kind} labels. */
    public enum Kind { RUNTIME, DRIVER }

    private final int correlation;
    private final int cbid;

    public LaunchWriter(TableBatch batch, int fileId) {
        super(batch, fileId, Kind.values());
        correlation = batch.column("correlation");
        cbid = batch.column("cbid");
    }

    public void correlation(long value) {
        batch.setLong(correlation, value);
    }

    public void cbid(int value) {
        batch.setInt(cbid, value);
    }
}
