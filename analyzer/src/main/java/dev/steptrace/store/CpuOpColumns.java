package dev.steptrace.store;

/**
 * Where the columns of {@code cpu_ops} are in a {@link TableBatch} for it, and the codes of its kind
 * labels: what every importer that writes CPU rows (Kineto ops and annotations, NVTX ranges) looks up
 * once per file.
 */
public final class CpuOpColumns extends EventColumns {
    public final int pid;
    public final int tid;
    public final int externalId;
    public final int nvtx;
    public final int nvtxDomain;
    public final int shapeId;
    /** Codes of the kind labels, for {@link TableBatch#setEnum}. */
    public final int cpuOp;
    public final int userAnnotation;
    public final int gpuUserAnnotation;
    public final int pythonFunction;
    /** Codes of the {@code nvtx} labels. */
    public final int pushPop;
    public final int startEnd;

    public CpuOpColumns(TableBatch b) {
        super(b);
        pid = b.column("pid");
        tid = b.column("tid");
        externalId = b.column("external_id");
        nvtx = b.column("nvtx");
        nvtxDomain = b.column("nvtx_domain");
        shapeId = b.column("shape_id");
        cpuOp = b.enumCode(kind, "cpu_op");
        userAnnotation = b.enumCode(kind, "user_annotation");
        gpuUserAnnotation = b.enumCode(kind, "gpu_user_annotation");
        pythonFunction = b.enumCode(kind, "python_function");
        pushPop = b.enumCode(nvtx, "push_pop");
        startEnd = b.enumCode(nvtx, "start_end");
    }
}
