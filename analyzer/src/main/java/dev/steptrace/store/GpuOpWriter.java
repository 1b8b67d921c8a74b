package dev.steptrace.store;

/**
 * One file's rows of {@code gpu_ops} (docs/schema.md), as every importer writes GPU operations: {@link #start}
 * with the columns every operation has, the optional ones it knows, then {@link #end}.
 */
public final class GpuOpWriter extends EventWriter {
    /** The {@code gpu_op_kind} labels. */
    public enum Kind { KERNEL, MEMCPY, MEMSET, SYNC }

    private final int[] kinds;
    private final int device;
    private final int stream;
    private final int correlation;
    private final int externalId;
    private final int bytes;
    private final int graphId;
    private final int graphNodeId;
    private final int gridX;
    private final int blockX;

    public GpuOpWriter(TableBatch batch, int fileId) {
        super(batch, fileId);
        kinds = kindCodes(Kind.values());
        device = batch.column("device");
        stream = batch.column("stream");
        correlation = batch.column("correlation");
        externalId = batch.column("external_id");
        bytes = batch.column("bytes");
        graphId = batch.column("graph_id");
        graphNodeId = batch.column("graph_node_id");
        gridX = batch.column("grid_x");
        blockX = batch.column("block_x");
        if (batch.column("grid_z") != gridX + 2 || batch.column("block_z") != blockX + 2) {
            throw new IllegalStateException("gpu_ops grid/block columns must be adjacent x, y, z");
        }
    }

    /** Begins a row: an operation of {@code kind} named {@code nameId} (a {@code names} id of the file). */
    public void start(Kind kind, int nameId, long tsNs, long durNs) {
        begin(kinds[kind.ordinal()], nameId, tsNs, durNs);
    }

    public void device(int value) {
        batch.setInt(device, value);
    }

    public void stream(long value) {
        batch.setLong(stream, value);
    }

    public void correlation(long value) {
        batch.setLong(correlation, value);
    }

    public void externalId(long value) {
        batch.setLong(externalId, value);
    }

    public void bytes(long value) {
        batch.setLong(bytes, value);
    }

    public void graphId(long value) {
        batch.setLong(graphId, value);
    }

    public void graphNodeId(long value) {
        batch.setLong(graphNodeId, value);
    }

    /** The grid's size along {@code axis} (0 x, 1 y, 2 z), in blocks. */
    public void grid(int axis, int value) {
        batch.setInt(gridX + axis, value);
    }

    /** The block's size along {@code axis} (0 x, 1 y, 2 z), in threads. */
    public void block(int axis, int value) {
        batch.setInt(blockX + axis, value);
    }
}
