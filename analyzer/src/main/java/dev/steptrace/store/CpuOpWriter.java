package dev.steptrace.store;

/**
 * One file's rows of {@code cpu_ops} (docs/schema.md), as every importer writes CPU ops and annotations (Kineto's
 * ops and annotations, NVTX ranges): {@link #start}, the optional columns it knows, then {@link #end}.
 */
public final class CpuOpWriter extends HostEventWriter<CpuOpWriter.Kind> {
    /** The {@code cpu_op_kind} labels. */
    public enum Kind { CPU_OP, USER_ANNOTATION, GPU_USER_ANNOTATION, PYTHON_FUNCTION }

    /** The {@code nvtx_range_kind} labels. */
    public enum Nvtx { PUSH_POP, START_END }

    private final int[] nvtxKinds;
    private final int nvtx;
    private final int nvtxDomain;
    private final int shapeId;

    public CpuOpWriter(TableBatch batch, int fileId) {
        super(batch, fileId, Kind.values());
        nvtx = batch.column("nvtx");
        nvtxDomain = batch.column("nvtx_domain");
        shapeId = batch.column("shape_id");
        nvtxKinds = codes(nvtx, Nvtx.values());
    }

    /** The kind of NVTX range the row is (NULL for rows that are not NVTX ranges). */
    public void nvtx(Nvtx kind) {
        batch.setEnum(nvtx, nvtxKinds[kind.ordinal()]);
    }

    /** The NVTX range's domain; not given for the default domain. */
    public void nvtxDomain(String value) {
        batch.setString(nvtxDomain, value);
    }

    /** The op's input shapes: an {@code op_shapes} id of the file. */
    public void shapeId(int value) {
        batch.setInt(shapeId, value);
    }
}
