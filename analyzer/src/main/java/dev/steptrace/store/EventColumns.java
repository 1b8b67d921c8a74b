package dev.steptrace.store;

/**
 * The columns every event table has ({@code file_id}, {@code kind}, {@code name_id}, {@code ts_ns},
 * {@code dur_ns}), found by name in a {@link TableBatch} once per file.
 */
public abstract class EventColumns {
    public final int file;
    public final int kind;
    public final int name;
    public final int ts;
    public final int dur;

    protected EventColumns(TableBatch b) {
        file = b.column("file_id");
        kind = b.column("kind");
        name = b.column("name_id");
        ts = b.column("ts_ns");
        dur = b.column("dur_ns");
    }
}
