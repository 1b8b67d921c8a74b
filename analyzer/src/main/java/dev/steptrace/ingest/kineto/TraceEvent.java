package dev.steptrace.ingest.kineto;

/**
 * One event as the reader hands it to a {@link TraceEventSink}: a mutable holder reused for every
 * event of a file, so the hot loop allocates nothing per event. Optional fields are flagged in
 * {@link #present}; read them only when their bit is set.
 */
public final class TraceEvent {
    public static final int PID = 1;
    public static final int TID = 1 << 1;
    public static final int DUR = 1 << 2;
    public static final int EXTERNAL_ID = 1 << 3;
    public static final int CORRELATION = 1 << 4;
    public static final int DEVICE = 1 << 5;
    public static final int STREAM = 1 << 6;
    public static final int BYTES = 1 << 7;
    public static final int CBID = 1 << 8;
    public static final int GRAPH_ID = 1 << 9;
    public static final int GRAPH_NODE_ID = 1 << 10;
    public static final int GRID = 1 << 11;
    public static final int BLOCK = 1 << 12;
    public static final int SORT_INDEX = 1 << 13;

    /** The Chrome-trace phase: 'X' complete, 'M' metadata, 'i' instant, 's'/'f' flow... */
    public char ph;
    public EventKind kind;
    /** The {@code cat} text as written, for the per-category counts of dropped events. */
    public String categoryName;
    public boolean hasTs;
    public int present;
    public int nameId;
    public long pid;
    public long tid;
    /** Nanoseconds as written (relative to {@code baseTimeNanoseconds} when the trace has one). */
    public long tsNs;
    public long durNs;
    public long externalId;
    public long correlation;
    public int device;
    public long stream;
    public long bytes;
    public int cbid;
    public long graphId;
    public long graphNodeId;
    public final int[] grid = new int[3];
    public final int[] block = new int[3];
    /** {@code args.name} / {@code args.labels} of metadata events. */
    public String metaValue;
    public long sortIndex;
    private boolean commTouched;
    private final CommArgs comm = new CommArgs();
    private final OpInputs inputs = new OpInputs();

    public boolean has(int flag) {
        return (present & flag) != 0;
    }

    /** Sets the integer field that {@code flag} stands for (an id, count or index of the args). */
    void setInteger(int flag, long value) {
        switch (flag) {
            case EXTERNAL_ID -> externalId = value;
            case CORRELATION -> correlation = value;
            case DEVICE -> device = (int) value;
            case STREAM -> stream = value;
            case BYTES -> bytes = value;
            case CBID -> cbid = (int) value;
            case GRAPH_ID -> graphId = value;
            case GRAPH_NODE_ID -> graphNodeId = value;
            case SORT_INDEX -> sortIndex = value;
            default -> throw new IllegalArgumentException("not an integer arg: " + flag);
        }
        present |= flag;
    }

    /** True when the args carried {@code record_param_comms} collective metadata. */
    public boolean hasComm() {
        return commTouched && comm.collective != null;
    }

    public CommArgs comm() {
        commTouched = true;
        return comm;
    }

    /** True when the args carried input shapes ({@code record_shapes}). */
    public boolean hasInputs() {
        return inputs.present;
    }

    public OpInputs inputs() {
        return inputs;
    }

    OpInputs touchInputs() {
        inputs.present = true;
        return inputs;
    }

    void reset() {
        ph = 0;
        kind = EventKind.OTHER;
        categoryName = "(none)";
        hasTs = false;
        present = 0;
        nameId = -1;
        metaValue = null;
        if (commTouched) {
            comm.reset();
            commTouched = false;
        }
        if (inputs.present) {
            inputs.reset();
        }
    }

    /**
     * The inputs a CPU op recorded under {@code record_shapes}: {@code Input Dims}, {@code Input type},
     * {@code Input Strides} and {@code Concrete Inputs}, each as compact JSON text (empty when absent).
     * Reused builders: no String per event.
     */
    public static final class OpInputs {
        public final StringBuilder dims = new StringBuilder();
        public final StringBuilder types = new StringBuilder();
        public final StringBuilder strides = new StringBuilder();
        public final StringBuilder concrete = new StringBuilder();
        private boolean present;

        /** The builder of one of the four args, by its key in the trace. */
        StringBuilder of(String arg) {
            return switch (arg) {
                case "Input Dims" -> dims;
                case "Input type" -> types;
                case "Input Strides" -> strides;
                default -> concrete;
            };
        }

        void reset() {
            dims.setLength(0);
            types.setLength(0);
            strides.setLength(0);
            concrete.setLength(0);
            present = false;
        }
    }

    /** Collective metadata copied from {@code record_param_comms} into cpu_op and NCCL kernel args. */
    public static final class CommArgs {
        public String collective;
        public String dtype;
        public Long inNelems;
        public Long outNelems;
        public Integer groupSize;
        public String pgName;
        public String pgDesc;
        public String pgRanks;
        public Integer rank;
        public Integer srcRank;
        public Integer dstRank;
        public Long seq;
        /** Unsigned 64-bit hash: may exceed Long.MAX_VALUE, so it is kept as text. */
        public String commsId;
        public String inSplit;
        public String outSplit;
        public Boolean isAsync;

        void reset() {
            collective = null;
            dtype = null;
            inNelems = null;
            outNelems = null;
            groupSize = null;
            pgName = null;
            pgDesc = null;
            pgRanks = null;
            rank = null;
            srcRank = null;
            dstRank = null;
            seq = null;
            commsId = null;
            inSplit = null;
            outSplit = null;
            isAsync = null;
        }
    }
}
