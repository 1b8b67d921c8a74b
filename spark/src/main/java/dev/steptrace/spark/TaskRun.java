package dev.steptrace.spark;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One task of the rank-local stage as Spark recorded it ({@code tasks.json}, docs/spark.md "Tasks").
 *
 * @param partition   the partition of traces it analysed
 * @param attempt     0 for the first attempt, more for a retry
 * @param executor    the executor's id ({@code driver} in local mode)
 * @param host        the executor's host
 * @param successful  whether the attempt finished
 * @param traces      the traces it was given
 * @param launchTime  when it started, epoch milliseconds
 * @param seconds     its wall time as the scheduler saw it
 * @param runSeconds  the executor's run time of it (without deserialising the task and sending the result)
 * @param cpuSeconds  CPU time of the task's thread (threads it starts, ingest's and DuckDB's, are not counted)
 */
public record TaskRun(int partition, int attempt, String executor, String host, boolean successful, long traces,
                      @JsonProperty("launch_time_ms") long launchTime, double seconds,
                      @JsonProperty("run_seconds") double runSeconds, @JsonProperty("cpu_seconds") double cpuSeconds) {}
