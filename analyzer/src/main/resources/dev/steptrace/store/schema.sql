-- steptrace store schema. docs/schema.md explains every table; keep the two in step.
-- Event tables carry file_id only: a file's rank, capture and clock base live in `files`,
-- so a file's rows can be replaced or dropped without touching anything else.

CREATE TYPE IF NOT EXISTS gpu_op_kind AS ENUM ('kernel', 'memcpy', 'memset', 'sync');
CREATE TYPE IF NOT EXISTS cpu_op_kind AS ENUM ('cpu_op', 'user_annotation', 'gpu_user_annotation', 'python_function');
CREATE TYPE IF NOT EXISTS launch_kind AS ENUM ('runtime', 'driver');
CREATE TYPE IF NOT EXISTS comm_source AS ENUM ('cpu_op', 'kernel');
CREATE TYPE IF NOT EXISTS nvtx_range_kind AS ENUM ('push_pop', 'start_end');

CREATE TABLE IF NOT EXISTS store_info (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR
);

CREATE TABLE IF NOT EXISTS captures (
    capture_id INTEGER PRIMARY KEY,
    path       VARCHAR NOT NULL UNIQUE,
    name       VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS files (
    file_id          INTEGER PRIMARY KEY,
    capture_id       INTEGER NOT NULL,
    path             VARCHAR NOT NULL,
    size_bytes       BIGINT NOT NULL,
    content_hash     VARCHAR NOT NULL,
    format           VARCHAR NOT NULL,      -- kineto | nsys-sqlite | nsys-parquet | nsys-arrow
    compressed       BOOLEAN NOT NULL,
    status           VARCHAR NOT NULL,      -- ingested | partial
    partial_reason   VARCHAR,
    damage_offset    BIGINT,                -- byte offset (of the decompressed JSON) where damage began
    rank             INTEGER,
    rank_source      VARCHAR,               -- distributed_info | mpi_ranks | file_name | file_order
    world_size       INTEGER,
    host_name        VARCHAR,
    base_time_ns     BIGINT,                -- baseTimeNanoseconds (nsys: the session start), already added to every stored timestamp
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
    parse_seconds    DOUBLE
);

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

-- Report contents (report.json plus the per-step series the HTML and Markdown draw), as JSON, so a
-- report over unchanged files is written without analysing the capture again. files_key digests the
-- capture's files rows (path, size, content hash, ingested_at, rank...), options_key the taxonomy
-- digest and step regex, build the steptrace build that made it: a re-ingested file, another option
-- set or another build never matches.
CREATE TABLE IF NOT EXISTS report_cache (
    capture_id  INTEGER NOT NULL,
    files_key   VARCHAR NOT NULL,
    options_key VARCHAR NOT NULL,
    build       VARCHAR NOT NULL,
    content     VARCHAR NOT NULL,
    created_at  TIMESTAMP NOT NULL
);

-- Files ingest found were not traces (JSON without "traceEvents", an SQLite file that is no Nsight
-- Systems export...), by path and fingerprint: the next ingest skips them unread while they are unchanged.
CREATE TABLE IF NOT EXISTS non_traces (
    path         VARCHAR PRIMARY KEY,
    size_bytes   BIGINT NOT NULL,
    content_hash VARCHAR NOT NULL,
    reason       VARCHAR NOT NULL
);
