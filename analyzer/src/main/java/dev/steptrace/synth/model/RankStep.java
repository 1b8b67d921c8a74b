package dev.steptrace.synth.model;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One step as one rank sees it, on that rank's clock (nanoseconds relative to
 * {@link Workload#BASE_TIME_NS}): the host ranges (step annotation, cpu ops), the runtime and driver
 * calls, the GPU activities and the GPU-side annotations, with the ids that link them (CUPTI
 * correlation, torch External id). It is format-neutral: Kineto JSON and an Nsight Systems export
 * describe the same things. Objects are pooled and rewritten each step, so a long capture allocates
 * nothing per event.
 */
public final class RankStep {
    /** What kind of host range a {@link HostOp} is. */
    public enum HostKind {
        /** A {@code record_function} range: the step annotation, {@code nccl:all_reduce}. */
        USER_ANNOTATION,
        CPU_OP,
        /** The c10d op that carries a collective's metadata ({@code Collective name}, {@code Seq}, ...). */
        RECORD_PARAM_COMMS
    }

    /** A host range; parents come before their children. */
    public static final class HostOp {
        public HostKind kind;
        public String name;
        public long start;
        public long dur;
        public long externalId;
        public long evIdx;
        /** For {@link HostKind#RECORD_PARAM_COMMS}: the collective's sequence number and comms id (unsigned). */
        public long seq;
        public long commsId;
    }

    /** A CUDA runtime or driver call. */
    public static final class ApiCall {
        public LaunchApi api;
        public long start;
        public long dur;
        public long correlation;
        /** External id of the op that made the call; 0 when it was made outside any op. */
        public long externalId;
    }

    /** A kernel or memcpy on the GPU. */
    public static final class GpuOp {
        public TemplateEntry entry;
        /** Position of {@link #entry} in its template, for per-entry caches of writers and totals. */
        public int index;
        public long start;
        public long dur;
        public long correlation;
        /** 0 for kernels replayed from a CUDA graph: no op launched them. */
        public long externalId;
        /** Node id inside the replayed graph, or -1 when launched eagerly. */
        public long graphNodeId;
        /** The launching {@code record_param_comms} op's seq / comms id, or -1 / 0 when there is none. */
        public long seq;
        public long commsId;
        /** For a collective: the time this rank spun waiting for the last rank to arrive. */
        public long waitNs;
        /** For a collective: the rank that arrived last (the lowest of them on a tie); -1 otherwise. */
        public int lastRank;
        /** For a collective: every rank's wait for the last one, summed (the same in every rank's view). */
        public long waitsNs;
    }

    /** A GPU-side projection of a host annotation ({@code gpu_user_annotation}). */
    public static final class GpuAnnotation {
        public String name;
        public long start;
        public long dur;
        public long externalId;
    }

    private StepTemplate template;
    private long graphId = -1;
    private final Pool<HostOp> hosts = new Pool<>(HostOp::new);
    private final Pool<ApiCall> calls = new Pool<>(ApiCall::new);
    private final Pool<GpuOp> gpu = new Pool<>(GpuOp::new);
    private final Pool<GpuAnnotation> annotations = new Pool<>(GpuAnnotation::new);

    void reset(StepTemplate template) {
        this.template = template;
        this.graphId = -1;
        hosts.clear();
        calls.clear();
        gpu.clear();
        annotations.clear();
    }

    public StepTemplate template() {
        return template;
    }

    public Phase phase() {
        return template.phase();
    }

    /** The replayed CUDA graph's id, or -1 for an eager step. */
    public long graphId() {
        return graphId;
    }

    void graphId(long id) {
        this.graphId = id;
    }

    public int hostCount() {
        return hosts.size();
    }

    public HostOp host(int i) {
        return hosts.get(i);
    }

    public int callCount() {
        return calls.size();
    }

    public ApiCall call(int i) {
        return calls.get(i);
    }

    public int gpuCount() {
        return gpu.size();
    }

    public GpuOp gpu(int i) {
        return gpu.get(i);
    }

    public int annotationCount() {
        return annotations.size();
    }

    public GpuAnnotation annotation(int i) {
        return annotations.get(i);
    }

    /** Index of the newly added host op. */
    int addHost(HostKind kind, String name, long start, long externalId, long evIdx) {
        HostOp h = hosts.add();
        h.kind = kind;
        h.name = name;
        h.start = start;
        h.dur = 0;
        h.externalId = externalId;
        h.evIdx = evIdx;
        h.seq = -1;
        h.commsId = 0;
        return hosts.size() - 1;
    }

    ApiCall addCall(LaunchApi api, long start, long dur, long correlation, long externalId) {
        ApiCall c = calls.add();
        c.api = api;
        c.start = start;
        c.dur = dur;
        c.correlation = correlation;
        c.externalId = externalId;
        return c;
    }

    GpuOp addGpu(TemplateEntry entry, int index) {
        GpuOp g = gpu.add();
        g.entry = entry;
        g.index = index;
        g.graphNodeId = -1;
        g.seq = -1;
        g.commsId = 0;
        g.waitNs = 0;
        g.lastRank = -1;
        g.waitsNs = 0;
        g.externalId = 0;
        return g;
    }

    void addAnnotation(String name, long start, long dur, long externalId) {
        GpuAnnotation a = annotations.add();
        a.name = name;
        a.start = start;
        a.dur = dur;
        a.externalId = externalId;
    }

    /** A list that keeps its objects when cleared, to be overwritten by the next step. */
    private static final class Pool<T> {
        private final List<T> items = new ArrayList<>();
        private final Supplier<T> factory;
        private int size;

        Pool(Supplier<T> factory) {
            this.factory = factory;
        }

        T add() {
            if (size == items.size()) {
                items.add(factory.get());
            }
            return items.get(size++);
        }

        T get(int i) {
            if (i >= size) {
                throw new IndexOutOfBoundsException(i);
            }
            return items.get(i);
        }

        int size() {
            return size;
        }

        void clear() {
            size = 0;
        }
    }
}
