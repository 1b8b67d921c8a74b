package dev.steptrace.store;

/**
 * What the writers of the host's event tables ({@code cpu_ops}, {@code launches}) share beside every event's
 * columns: the kind as an enum of their own, and the process, thread and external id of the call.
 *
 * @param <K> the table's kind labels
 */
abstract class HostEventWriter<K extends Enum<K>> extends EventWriter {
    private final int[] kinds;
    private final int pid;
    private final int tid;
    private final int externalId;

    protected HostEventWriter(TableBatch batch, int fileId, K[] kindLabels) {
        super(batch, fileId);
        kinds = kindCodes(kindLabels);
        pid = batch.column("pid");
        tid = batch.column("tid");
        externalId = batch.column("external_id");
    }

    /** Begins a row of {@code kind} named {@code nameId} (a {@code names} id of the file). */
    public final void start(K kind, int nameId, long tsNs, long durNs) {
        begin(kinds[kind.ordinal()], nameId, tsNs, durNs);
    }

    public final void pid(long value) {
        batch.setLong(pid, value);
    }

    public final void tid(long value) {
        batch.setLong(tid, value);
    }

    public final void externalId(long value) {
        batch.setLong(externalId, value);
    }
}
