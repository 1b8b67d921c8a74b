package dev.steptrace.store;

/**
 * Where the columns of {@code gpu_ops} are in a {@link TableBatch} for it, and the codes of its kind
 * labels: what every importer that writes GPU operations looks up once per file.
 * Grid and block columns are adjacent x, y, z: {@code gridX + 1} is grid_y.
 */
public final class GpuOpColumns extends EventColumns {
    public final int device;
    public final int stream;
    public final int correlation;
    public final int externalId;
    public final int bytes;
    public final int graphId;
    public final int graphNodeId;
    public final int gridX;
    public final int blockX;
    /** Codes of the kind labels, for {@link TableBatch#setEnum}. */
    public final int kernel;
    public final int memcpy;
    public final int memset;
    public final int sync;

    public GpuOpColumns(TableBatch b) {
        super(b);
        device = b.column("device");
        stream = b.column("stream");
        correlation = b.column("correlation");
        externalId = b.column("external_id");
        bytes = b.column("bytes");
        graphId = b.column("graph_id");
        graphNodeId = b.column("graph_node_id");
        gridX = b.column("grid_x");
        blockX = b.column("block_x");
        if (b.column("grid_z") != gridX + 2 || b.column("block_z") != blockX + 2) {
            throw new IllegalStateException("gpu_ops grid/block columns must be adjacent x, y, z");
        }
        kernel = b.enumCode(kind, "kernel");
        memcpy = b.enumCode(kind, "memcpy");
        memset = b.enumCode(kind, "memset");
        sync = b.enumCode(kind, "sync");
    }
}
