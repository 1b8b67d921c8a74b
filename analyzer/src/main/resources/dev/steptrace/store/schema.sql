-- steptrace store schema. docs/schema.md explains every table; keep the two in step.
-- Event tables carry file_id only: a file's rank, capture and clock base live in `files`,
-- so a file's rows can be replaced or dropped without touching anything else.

CREATE TYPE IF NOT EXISTS gpu_op_kind AS ENUM ('kernel', 'memcpy', 'memset', 'sync');
CREATE TYPE IF NOT EXISTS cpu_op_kind AS ENUM ('cpu_op', 'user_annotation', 'gpu_user_annotation', 'python_function');
CREATE TYPE IF NOT EXISTS launch_kind AS ENUM ('runtime', 'driver');
CREATE TYPE IF NOT EXISTS comm_source AS ENUM ('cpu_op', 'kernel');
CREATE TYPE IF NOT EXISTS nvtx_range_kind AS ENUM ('push_pop', 'start_end');

-- The store's own bookkeeping, key -> value: schema_version (the layout; Store refuses another's).
CREATE TABLE IF NOT EXISTS store_info (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR
);

-- A capture is one run: the files of a directory that agree on what the traces say (docs/schema.md,
-- "Captures"). Its files are those whose files.capture_id points here; a capture with single_file_id
-- is that one file taken alone out of its run (`report FILE`). The view capture_files lists both kinds.
CREATE TABLE IF NOT EXISTS captures (
    capture_id     INTEGER PRIMARY KEY,
    path           VARCHAR NOT NULL,         -- the directory holding its files
    name           VARCHAR NOT NULL,         -- unique in the store: output folders and lookups use it
    single_file_id INTEGER,                  -- the file, for a capture of one file taken alone; NULL for a run
    created_at     TIMESTAMP NOT NULL
);

-- One row per trace file (a trace made of several files, an nsys Parquet export, is one row): where it is,
-- its fingerprint, how it was read, what it holds, its rank and clock base (docs/schema.md, "files").
CREATE TABLE IF NOT EXISTS files (
    file_id          INTEGER PRIMARY KEY,
    capture_id       INTEGER,               -- the run it belongs to; NULL only until ingest has grouped the directory
    path             VARCHAR NOT NULL,
    size_bytes       BIGINT NOT NULL,
    content_hash     VARCHAR NOT NULL,
    format           VARCHAR NOT NULL,      -- kineto | nsys-sqlite | nsys-parquet | nsys-arrow | rocprofv3-csv
    compressed       BOOLEAN NOT NULL,
    status           VARCHAR NOT NULL,      -- ingested | partial
    partial_reason   VARCHAR,
    damage_offset    BIGINT,                -- byte offset (of the decompressed JSON) where damage began
    rank             INTEGER,
    rank_source      VARCHAR,               -- distributed_info | mpi_ranks | file_name | file_order
    world_size       INTEGER,
    host_name        VARCHAR,
    base_time_ns     BIGINT,                -- baseTimeNanoseconds (nsys: the export's start), already added to every stored timestamp
    first_ts_ns      BIGINT,
    last_ts_ns       BIGINT,
    json_bytes       BIGINT,                -- uncompressed JSON bytes read (nsys: the export's bytes)
    n_kernel         BIGINT,
    n_memcpy         BIGINT,
    n_memset         BIGINT,
    n_sync           BIGINT,
    n_runtime        BIGINT,                -- CUDA runtime and driver calls
    n_cpu_op         BIGINT,
    n_annotation     BIGINT,                -- user and GPU user annotations
    n_python         BIGINT,
    n_comm_meta      BIGINT,
    n_dropped        BIGINT,                -- events read but not kept (flows, instants, counters, python_function...)
    anomalies        JSON,                  -- counts of values that were clamped, repaired or ignored
    distributed_info JSON,
    metadata         JSON,                  -- other top-level keys of the trace (versions, flags, trace_id...)
    ingested_at      TIMESTAMP NOT NULL,
    parse_seconds    DOUBLE,
    python_functions BOOLEAN,               -- Kineto: python_function events kept (ingest --keep-python-functions); NULL for other formats
    file_stat        VARCHAR                -- the files' identity on disk when their content was read (inode, size, times); NULL when it cannot tell a change
);

-- The GPUs a file's trace lists (Kineto deviceProperties, nsys TARGET_INFO_GPU), one row per device id.
CREATE TABLE IF NOT EXISTS devices (
    file_id       INTEGER NOT NULL,
    device_id     INTEGER NOT NULL,
    name          VARCHAR,
    total_memory  BIGINT,
    compute_major INTEGER,
    compute_minor INTEGER,
    num_sms       INTEGER,
    properties    JSON
);

-- The process and thread names a trace gives its tracks, one row per (pid, tid); tid NULL for a process.
CREATE TABLE IF NOT EXISTS tracks (
    file_id    INTEGER NOT NULL,
    pid        BIGINT,
    tid        BIGINT,                      -- NULL for a process row
    name       VARCHAR,
    labels     VARCHAR,
    sort_index BIGINT
);

-- Each file's distinct event names; event rows point here by (file_id, name_id).
CREATE TABLE IF NOT EXISTS names (
    file_id INTEGER NOT NULL,
    name_id INTEGER NOT NULL,
    name    VARCHAR NOT NULL
);

-- Every GPU operation of a file: kernels, memory copies and sets, synchronizations; one row each.
CREATE TABLE IF NOT EXISTS gpu_ops (
    file_id       INTEGER NOT NULL,
    kind          gpu_op_kind NOT NULL,
    name_id       INTEGER NOT NULL,
    device        INTEGER,
    stream        BIGINT,
    ts_ns         BIGINT NOT NULL,
    dur_ns        BIGINT NOT NULL,
    correlation   BIGINT,
    external_id   BIGINT,
    bytes         BIGINT,
    graph_id      BIGINT,
    graph_node_id BIGINT,
    grid_x        INTEGER,
    grid_y        INTEGER,
    grid_z        INTEGER,
    block_x       INTEGER,
    block_y       INTEGER,
    block_z       INTEGER
);

-- Every CPU op and annotation of a file kept (Kineto ops and user annotations, NVTX ranges); one row each.
CREATE TABLE IF NOT EXISTS cpu_ops (
    file_id     INTEGER NOT NULL,
    kind        cpu_op_kind NOT NULL,
    name_id     INTEGER NOT NULL,
    pid         BIGINT,
    tid         BIGINT,
    ts_ns       BIGINT NOT NULL,
    dur_ns      BIGINT NOT NULL,
    external_id BIGINT,
    nvtx        nvtx_range_kind,            -- NVTX ranges of Nsight Systems exports: push/pop or start/end; NULL for Kineto rows
    nvtx_domain VARCHAR,                    -- the NVTX range's domain; NULL for the default domain
    shape_id    INTEGER                     -- the op's input shapes (record_shapes): op_shapes(file_id, shape_id); NULL without
);

-- The distinct input shapes of a file's CPU ops (Kineto record_shapes args), each once per file; cpu_ops
-- rows point here by (file_id, shape_id). Values are the args' JSON arrays as written, compacted.
CREATE TABLE IF NOT EXISTS op_shapes (
    file_id         INTEGER NOT NULL,
    shape_id        INTEGER NOT NULL,
    input_dims      VARCHAR,                -- "Input Dims", e.g. [[4096,7168],[7168,5120]]
    input_types     VARCHAR,                -- "Input type", e.g. ["c10::BFloat16","c10::BFloat16"]
    input_strides   VARCHAR,                -- "Input Strides"
    concrete_inputs VARCHAR                 -- "Concrete Inputs": scalar arguments as text, "" for tensors
);

-- Every CUDA (or HIP) runtime and driver call of a file; a GPU operation points at its launch by correlation.
CREATE TABLE IF NOT EXISTS launches (
    file_id     INTEGER NOT NULL,
    kind        launch_kind NOT NULL,
    name_id     INTEGER NOT NULL,
    pid         BIGINT,
    tid         BIGINT,
    ts_ns       BIGINT NOT NULL,
    dur_ns      BIGINT NOT NULL,
    correlation BIGINT,
    external_id BIGINT,
    cbid        INTEGER
);

-- What a trace says of each collective (record_param_comms ops, NCCL kernels' args); one row per record.
CREATE TABLE IF NOT EXISTS comm_meta (
    file_id      INTEGER NOT NULL,
    source       comm_source NOT NULL,
    ts_ns        BIGINT NOT NULL,
    correlation  BIGINT,
    external_id  BIGINT,
    collective   VARCHAR,
    dtype        VARCHAR,
    in_nelems    BIGINT,
    out_nelems   BIGINT,
    group_size   INTEGER,
    pg_name      VARCHAR,
    pg_desc      VARCHAR,
    pg_ranks     VARCHAR,
    rank         INTEGER,
    src_rank     INTEGER,
    dst_rank     INTEGER,
    seq          BIGINT,
    comms_id     UBIGINT,
    in_split     VARCHAR,
    out_split    VARCHAR,
    is_async     BOOLEAN
);

-- The kernel taxonomy's verdict on each distinct (name, kind) of gpu_ops (kind kernel, memcpy or memset):
-- headline category (docs/taxonomy.md, "Categories"), subcategory and the id of the rule that decided
-- (dev/steptrace/classify/taxonomy.yaml, docs/taxonomy.md). Rows are keyed by the SHA-256 digest of
-- the effective rule list (built-in rules plus any --taxonomy file), so a change of rules never
-- reuses stale rows: classification runs again under the new digest, and rows of other digests stay
-- for the rule lists that made them. Join on (name, kind::VARCHAR, taxonomy_digest).
CREATE TABLE IF NOT EXISTS name_classes (
    name            VARCHAR,
    kind            VARCHAR,
    category        VARCHAR,
    subcategory     VARCHAR,
    rule_id         VARCHAR,
    taxonomy_digest VARCHAR
);

-- The analysis of captures (docs/schema.md, "The analysis"): what report, diff, decide, the API and the
-- notebooks read. Every table is keyed by (capture_id, analysis_key): the capture and the options that
-- shaped the analysis ('default': built-in taxonomy and step sources; else a digest of the taxonomy
-- and the step regex). One analysis is written in one transaction, replacing the rows of the same key;
-- `analyses` says from which files, options and steptrace build it was made.
CREATE TABLE IF NOT EXISTS analyses (
    capture_id      INTEGER NOT NULL,
    analysis_key    VARCHAR NOT NULL,
    taxonomy_digest VARCHAR NOT NULL,
    step_regex      VARCHAR,
    step_source     VARCHAR NOT NULL,
    files_key       VARCHAR NOT NULL,       -- SHA-256 of the capture's files rows (path, size, hash, rank, ingest time...)
    build           VARCHAR NOT NULL,       -- the steptrace build that made it
    created_at      TIMESTAMP NOT NULL,
    seconds         DOUBLE
);

-- The steps each file of the capture was cut into, with their phase, range and source.
CREATE TABLE IF NOT EXISTS steps (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,          -- the step's number in its file, from 0 in time order
    phase        VARCHAR NOT NULL,          -- decode | prefill | mixed | unknown
    phase_index  INTEGER NOT NULL,          -- position among the file's steps of the phase: how steps match across ranks
    name         VARCHAR,                   -- the annotation (or launch, or "gpu burst N") that marks the step
    source       VARCHAR NOT NULL,          -- report.json's step_source
    step_number  BIGINT,                    -- N of ProfilerStep#N
    start_ns     BIGINT NOT NULL,           -- the step's range as its source marks it (CPU time for annotations)
    end_ns       BIGINT NOT NULL
);

-- Per step: kernel time, span, busy and idle time, host gap, collective waits, overlap, launch waits.
CREATE TABLE IF NOT EXISTS step_metrics (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,          -- one row per step
    phase        VARCHAR NOT NULL,
    phase_index  INTEGER NOT NULL,
    gpu_start_ns BIGINT,                    -- first start of the step's GPU operations (NULL: none)
    gpu_end_ns   BIGINT,
    kernel_ns    BIGINT NOT NULL,           -- sum of operation durations
    calls        BIGINT NOT NULL,
    span_ns      BIGINT,                    -- gpu_end_ns - gpu_start_ns
    busy_ns      BIGINT,                    -- union of operation intervals over streams
    idle_ns      BIGINT,                    -- span - busy
    host_gap_ns  BIGINT,                    -- GPU idle since the previous step's last operation (NULL for the first)
    wait_ns      BIGINT NOT NULL,           -- the step's collective waits (collective_instances.wait_ns; 0 where none matched)
    compute_ns   BIGINT NOT NULL,           -- kernel_ns - wait_ns
    comm_ns      BIGINT NOT NULL,           -- union of the step's communication kernels
    hidden_ns    BIGINT NOT NULL,           -- the part of comm_ns under other operations
    launch_wait_ns BIGINT                   -- idle gaps that waited for the next launch (NULL: the file has no launch calls)
);

-- Per step: its window on the rank (a step's start to the next one's), its time, its launches.
CREATE TABLE IF NOT EXISTS step_times (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    phase        VARCHAR NOT NULL,
    phase_index  INTEGER NOT NULL,
    start_ns     BIGINT NOT NULL,           -- the step's window: its start (CPU start; graph replays and bursts: first GPU start)
    end_ns       BIGINT NOT NULL,           -- the next step's start on the rank (the last step: its own end or its GPU end, the later)
    step_ns      BIGINT NOT NULL,           -- end_ns - start_ns: the step time, which step_time_parts divides
    launches     BIGINT NOT NULL,           -- eager launch calls of the step's GPU operations
    graph_launches BIGINT NOT NULL          -- CUDA graph launches of the step's GPU operations
);

-- Per step and part: the parts of its time as each rank's analysis finds them, exposed communication by kind
-- (comm_allreduce, comm_other) with its waits in it; the view step_time_parts splits the waits off.
CREATE TABLE IF NOT EXISTS step_time_base (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    phase        VARCHAR NOT NULL,
    phase_index  INTEGER NOT NULL,
    part         VARCHAR NOT NULL,
    ns           BIGINT NOT NULL
);

-- Per step, part of its critical path and, for a collective part, collective operation: the rank's own chain of
-- dependencies through the step (docs/whatif.md, "Critical path"), each collective on it whole, its wait in it;
-- the view critical_path splits the waits off.
CREATE TABLE IF NOT EXISTS critical_path_base (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    phase        VARCHAR NOT NULL,
    phase_index  INTEGER NOT NULL,
    part         VARCHAR NOT NULL,          -- a kernel category, comm_allreduce, comm_other, cpu, launch, sync, gap, untracked
    op_ts_ns     BIGINT,                    -- a collective part's operation (its gpu_ops.ts_ns); NULL for the other parts
    ns           BIGINT NOT NULL
);

-- Per step, host-sync call and the CPU op that issued it: calls, time in them, GPU idle they caused.
CREATE TABLE IF NOT EXISTS host_syncs (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    phase        VARCHAR NOT NULL,
    call         VARCHAR NOT NULL,          -- cudaStreamSynchronize, cudaMemcpyAsync, ... (host-sync-calls.yaml)
    op           VARCHAR,                   -- the CPU op that issued it (innermost, by external id; NULL: unknown)
    calls        BIGINT NOT NULL,
    call_ns      BIGINT NOT NULL,           -- time inside the calls
    idle_ns      BIGINT NOT NULL            -- GPU idle time they caused (step_time_parts' idle_sync)
);

-- Per rank, phase and CPU op: the GPU idle time inside steps while it ran.
CREATE TABLE IF NOT EXISTS idle_cpu_ops (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    phase        VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL,          -- cpu_op | python_function
    name         VARCHAR NOT NULL,
    calls        BIGINT NOT NULL,           -- calls that ran while the GPU was idle in a step
    idle_ns      BIGINT NOT NULL            -- GPU idle time inside steps while the op ran (inclusive: nested ops each count it)
);

-- Per step, category and subcategory: kernel time and calls.
CREATE TABLE IF NOT EXISTS step_categories (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,          -- a row per step, category and subcategory
    phase        VARCHAR NOT NULL,
    phase_index  INTEGER NOT NULL,
    category     VARCHAR NOT NULL,
    subcategory  VARCHAR NOT NULL,
    ns           BIGINT NOT NULL,
    ms           DOUBLE NOT NULL,           -- ns / 1e6
    calls        BIGINT NOT NULL
);

-- Per step and kernel name (by class variant): kernel time and calls.
CREATE TABLE IF NOT EXISTS step_kernels (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,          -- a row per step, kernel name and class
    phase        VARCHAR NOT NULL,
    phase_index  INTEGER NOT NULL,
    name         VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL,          -- kernel | memcpy | memset
    variant      INTEGER NOT NULL,          -- the class: kernel_classes' row of (name, kind, variant)
    ns           BIGINT NOT NULL,
    calls        BIGINT NOT NULL
);

-- The class of each kernel name of the capture (category, subcategory, the taxonomy rule that decided),
-- and of each class some of its operations got from their context (variant > 0).
CREATE TABLE IF NOT EXISTS kernel_classes (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    name         VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL,
    variant      INTEGER NOT NULL,          -- 0: the name's class; others: a class some operations got from their context
    category     VARCHAR NOT NULL,
    subcategory  VARCHAR NOT NULL,
    rule_id      VARCHAR NOT NULL
);

-- The operations whose class came from their context (variant > 0), one row each, for the timeline.
CREATE TABLE IF NOT EXISTS context_ops (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    stream       BIGINT,
    ts_ns        BIGINT NOT NULL,           -- the operation: gpu_ops (file_id, stream, ts_ns) and its name
    name         VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL,
    variant      INTEGER NOT NULL           -- the class its context gave it: kernel_classes (name, kind, variant)
);

-- Per file, phase, launch context and kernel name (by class variant): kernel time and calls in steps. The context is
-- what enclosed the launch call on its thread (docs/taxonomy.md, "Classes from the launching op"): the innermost CPU
-- op, user annotation and nn.Module range; NULL where none did (or no launch call is in the trace).
CREATE TABLE IF NOT EXISTS kernel_contexts (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    phase        VARCHAR NOT NULL,
    op           VARCHAR,                   -- the innermost CPU op around the launch (a graph replay's: the graph launch's)
    annotation   VARCHAR,                   -- the innermost user annotation (record_function) around it, step ranges aside
    module       VARCHAR,                   -- the innermost nn.Module range ('nn.Module: FusedMoE_0'), with python functions kept
    name         VARCHAR NOT NULL,          -- the kernel (or memcpy / memset) name
    kind         VARCHAR NOT NULL,
    variant      INTEGER NOT NULL,          -- its class: kernel_classes' row of (name, kind, variant)
    ns           BIGINT NOT NULL,
    calls        BIGINT NOT NULL
);

-- Per step, what the host shows of torch.compile and CUDA graphs (stage 73-compile-events): compiled regions entered,
-- compilation, CUDA graph recording, and the eager launches between compiled regions.
CREATE TABLE IF NOT EXISTS step_compile_events (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    phase        VARCHAR NOT NULL,
    event        VARCHAR NOT NULL,          -- compiled_region, resumed_region, compile, graph_record, graph_capture, eager_between
    name         VARCHAR NOT NULL,          -- the range or call ('Torch-Compiled Region: 0/1', cudaStreamBeginCapture); eager_between: the launching op
    calls        BIGINT NOT NULL,
    ns           BIGINT NOT NULL            -- CPU time of the ranges or calls; eager_between: GPU time of what they launched
);

-- Every collective kernel of a step, matched across ranks into instances: its message, its transfer and wait.
CREATE TABLE IF NOT EXISTS collective_instances (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    instance     INTEGER NOT NULL,          -- the same number on every rank: (phase, phase_index, type, k)
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    phase        VARCHAR NOT NULL,
    phase_index  INTEGER NOT NULL,
    type         VARCHAR NOT NULL,          -- allreduce, all_gather, reduce_scatter, all_to_all, send_recv...
    k            INTEGER NOT NULL,          -- position among the step's collectives of the type
    ts_ns        BIGINT NOT NULL,
    dur_ns       BIGINT NOT NULL,
    dtype        VARCHAR,
    group_size   INTEGER,
    msg_bytes    BIGINT,                    -- when the trace records sizes
    transfer_ns  BIGINT,                    -- the fastest rank's duration of the instance (NULL: not every rank has it)
    wait_ns      BIGINT,                    -- dur_ns - transfer_ns
    after_category VARCHAR                  -- the category with the most time on the rank since its previous collective of the step
);

-- Per file and device id its GPU work ran on: the GPU model and how it was found (stage 02-devices).
CREATE TABLE IF NOT EXISTS rank_devices (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    device       INTEGER,                   -- the device id its GPU operations carry
    name         VARCHAR,                   -- the GPU model (NULL: unknown)
    how          VARCHAR                    -- listed | only_model (a guess) | NULL (unknown)
);

-- Per file, what the capture-quality rules read (docs/warnings.md) that no other table keeps: its GPU
-- operations in no step, its CUDA graph launches without kernel records, why its NVTX ranges are not steps.
CREATE TABLE IF NOT EXISTS file_checks (
    capture_id     INTEGER NOT NULL,
    analysis_key   VARCHAR NOT NULL,
    file_id        INTEGER NOT NULL,
    rank           INTEGER,
    ops            BIGINT NOT NULL,          -- GPU operations (sync records aside) and their time (ns)
    ops_ns         BIGINT NOT NULL,
    outside_ops    BIGINT NOT NULL,          -- of them, those in no step, and their time (ns)
    outside_ns     BIGINT NOT NULL,
    graph_launches BIGINT NOT NULL,          -- CUDA graph launches
    graph_launches_without_kernels BIGINT NOT NULL, -- of them, those whose replay has no per-kernel records
    nvtx_note      VARCHAR                   -- why its NVTX ranges were not taken as steps (NULL: they were, or not tried)
);

-- Per instance matched on every rank: the rank that arrived last, and the others' wait for it.
CREATE TABLE IF NOT EXISTS collective_arrivals (
    capture_id     INTEGER NOT NULL,
    analysis_key   VARCHAR NOT NULL,
    instance       INTEGER NOT NULL,        -- collective_instances.instance, matched on every rank
    phase          VARCHAR NOT NULL,
    phase_index    INTEGER NOT NULL,
    type           VARCHAR NOT NULL,
    k              INTEGER NOT NULL,
    ranks          INTEGER NOT NULL,
    last_rank      INTEGER,                 -- the rank that arrived last: the shortest kernel (ties: the lowest rank)
    last_file_id   INTEGER,
    last_step      INTEGER,
    last_ts_ns     BIGINT,
    transfer_ns    BIGINT,                  -- the shortest duration
    lateness_ns    BIGINT,                  -- the second-shortest duration minus the shortest
    wait_ns        BIGINT,                  -- the other ranks' waits, summed
    after_category VARCHAR                  -- what the last rank was busy with before it arrived (its instance's after_category)
);

-- Per file, phase and category: the delay from an eager launch call to its operation's start.
CREATE TABLE IF NOT EXISTS launch_delays (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    phase        VARCHAR NOT NULL,
    category     VARCHAR NOT NULL,
    ops          BIGINT NOT NULL,           -- eagerly launched operations (not CUDA graph replays') in the phase's steps
    mean_ns      DOUBLE,                    -- launch call start to operation start
    median_ns    DOUBLE,
    p90_ns       DOUBLE
);

-- Per file, the launch latency and the GPU's gap between queued operations that the replay takes as "at once"
-- (stage 61-replay-latencies; docs/whatif.md, "The model").
CREATE TABLE IF NOT EXISTS replay_latencies (
    capture_id         INTEGER NOT NULL,
    analysis_key       VARCHAR NOT NULL,
    file_id            INTEGER NOT NULL,
    rank               INTEGER,
    launch_latency_ns  BIGINT NOT NULL,     -- 10th percentile of launch call to start, streams free at launch (5000: none)
    launch_samples     BIGINT NOT NULL,     -- the operations it is over
    stream_gap_ns      BIGINT NOT NULL,     -- 10th percentile of the gap after the stream's previous operation, queued behind it (1000: none)
    stream_gap_samples BIGINT NOT NULL
);

-- Every CUDA graph replay with kernels in a step: its GPU window and the gap since the previous one.
CREATE TABLE IF NOT EXISTS graph_replays (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    phase        VARCHAR NOT NULL,
    correlation  BIGINT NOT NULL,           -- the graph launch's correlation id
    start_ns     BIGINT NOT NULL,           -- the replay's GPU window
    end_ns       BIGINT NOT NULL,
    gap_ns       BIGINT                     -- GPU time since the file's previous replay ended (NULL for the first)
);

-- Every kernel in a step whose work the trace says (recorded shapes, a collective's bytes): FLOPs and bytes.
CREATE TABLE IF NOT EXISTS kernel_work (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    step         INTEGER NOT NULL,
    phase        VARCHAR NOT NULL,
    name         VARCHAR NOT NULL,          -- the kernel
    kind         VARCHAR NOT NULL,
    category     VARCHAR NOT NULL,
    op           VARCHAR,                   -- the CPU op that launched it (NULL: not known by its external id)
    external_id  BIGINT,
    ts_ns        BIGINT NOT NULL,
    dur_ns       BIGINT NOT NULL,
    family       VARCHAR NOT NULL,          -- the work model: gemm, attention, ..., collective
    precision    VARCHAR,                   -- bf16 | fp16 | fp8 | int8 (NULL: not compute work)
    flops        DOUBLE,                    -- its share of the op's FLOPs (NULL: unknown)
    bytes        DOUBLE                     -- its share of the op's memory traffic; a collective's bus bytes
);

-- Per phase and CPU op with recorded shapes: its calls with each set of shapes (for model-file checks).
CREATE TABLE IF NOT EXISTS op_shape_calls (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    file_id      INTEGER NOT NULL,
    rank         INTEGER,
    phase        VARCHAR NOT NULL,
    name         VARCHAR NOT NULL,          -- the CPU op
    shape_id     INTEGER NOT NULL,          -- op_shapes (file_id, shape_id): its inputs' shapes
    calls        BIGINT NOT NULL            -- calls in the phase's steps that launched GPU work
);

-- The capture-quality warnings of the analysis, in report order (docs/warnings.md).
CREATE TABLE IF NOT EXISTS analysis_warnings (
    capture_id   INTEGER NOT NULL,
    analysis_key VARCHAR NOT NULL,
    ordinal      INTEGER NOT NULL,
    code         VARCHAR NOT NULL,
    message      VARCHAR NOT NULL
);

-- Files ingest found were not traces (JSON without "traceEvents", an SQLite file that is no Nsight
-- Systems export...), by path and fingerprint: the next ingest skips them unread while they are unchanged.
CREATE TABLE IF NOT EXISTS non_traces (
    path         VARCHAR PRIMARY KEY,
    size_bytes   BIGINT NOT NULL,
    content_hash VARCHAR NOT NULL,
    reason       VARCHAR NOT NULL
);
