package dev.steptrace.store;

import java.sql.SQLException;

/**
 * What the writers of the event tables share: the columns every event row has ({@code file_id}, {@code kind},
 * {@code name_id}, {@code ts_ns}, {@code dur_ns}), found by name in the table's {@link TableBatch} once per
 * file, and the end of a row. A row is begun with the columns every event has, given its optional columns,
 * then ended; a column not given is NULL.
 */
abstract class EventWriter {
    protected final TableBatch batch;
    private final int fileId;
    private final int file;
    private final int kind;
    private final int name;
    private final int ts;
    private final int dur;

    protected EventWriter(TableBatch batch, int fileId) {
        this.batch = batch;
        this.fileId = fileId;
        file = batch.column("file_id");
        kind = batch.column("kind");
        name = batch.column("name_id");
        ts = batch.column("ts_ns");
        dur = batch.column("dur_ns");
    }

    /** The codes of the {@code kind} column's labels, in the order of {@code labels}. */
    protected final int[] kindCodes(Enum<?>[] labels) {
        return codes(kind, labels);
    }

    /** The codes of an enum column's labels: each constant's name in lower case. */
    protected final int[] codes(int column, Enum<?>[] labels) {
        int[] codes = new int[labels.length];
        for (int i = 0; i < labels.length; i++) {
            codes[i] = batch.enumCode(column, labels[i].name().toLowerCase(java.util.Locale.ROOT));
        }
        return codes;
    }

    /** Begins a row of this file: its kind (a code of {@link #kindCodes}), name and times. */
    protected final void begin(int kindCode, int nameId, long tsNs, long durNs) {
        batch.setInt(file, fileId);
        batch.setEnum(kind, kindCode);
        batch.setInt(name, nameId);
        batch.setLong(ts, tsNs);
        batch.setLong(dur, durNs);
    }

    /** Ends the row (its other columns NULL); the batch is inserted when full. */
    public final void end() throws SQLException {
        batch.endRow();
    }
}
