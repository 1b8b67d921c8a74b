package dev.steptrace.ingest;

import java.util.Map;
import java.util.TreeMap;

/**
 * What loading one file produced, whatever its format: the values of its {@code files} row (see
 * docs/schema.md) that the reader knows. {@link Ingestor} adds identity, rank fallback and timing.
 */
public final class FileSummary {
    /** Uncompressed bytes read (the JSON of a Kineto trace; the export's bytes on disk for nsys). */
    public long bytesRead;
    public boolean partial;
    public String partialReason;
    public Long damageOffset;
    /** Not null when the rows written must be rolled back and the file read again up to this stop. */
    public TraceInput.Stop reread;
    /** The rank the file itself states, and where it said so ({@code distributed_info}, {@code mpi_ranks}). */
    public Integer rank;
    public String rankSource;
    public Integer worldSize;
    public String hostName;
    public long baseTimeNs;
    public Long firstTsNs;
    public Long lastTsNs;
    public long kernels;
    public long memcpys;
    public long memsets;
    public long syncs;
    /** CUDA runtime and driver calls. */
    public long runtime;
    public long cpuOps;
    /** User and GPU user annotations; NVTX ranges for Nsight Systems exports. */
    public long annotations;
    public long python;
    public long commRows;
    public long dropped;
    public final Map<String, Long> anomalies = new TreeMap<>();
    public String distributedInfo;
    /** JSON object, or null. */
    public String metadata;

    public void anomaly(String what, long n) {
        if (n != 0) {
            anomalies.merge(what, n, Long::sum);
        }
    }

    /** The per-kind counts of {@code ingest --json} and the summary table. */
    Map<String, Long> counts() {
        Map<String, Long> m = FileOutcome.emptyCounts();
        m.put("kernel", kernels);
        m.put("memcpy", memcpys);
        m.put("memset", memsets);
        m.put("runtime", runtime);
        m.put("cpu_op", cpuOps);
        m.put("annotation", annotations);
        return m;
    }
}
