package dev.steptrace.spark;

import dev.steptrace.api.IngestListener;
import dev.steptrace.api.Steptrace;
import dev.steptrace.common.OutputFiles;
import dev.steptrace.ingest.FileOutcome;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.IngestReport;
import dev.steptrace.store.ParquetExport;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The rank-local part of the analysis, one trace per task: the trace is copied into the task's scratch
 * space, read by steptrace's own importers into an embedded store there, analysed as {@code steptrace
 * ingest} analyses it, and the store's rows of that file are exported as the dataset's partition files
 * ({@link ParquetExport}, the same code as {@code steptrace export}), then copied to the output. docs/spark.md
 * says why an embedded store rather than rows built straight into Spark.
 */
final class RankLocalTask implements Function<TraceRef, TaskOutcome> {
    private static final long serialVersionUID = 1L;
    /**
     * Tables of a capture as a whole that a task writes too, its rows among the capture's: the classes of
     * the names its file holds (the capture's are their union).
     */
    static final Set<String> CAPTURE_TABLES = Set.of("kernel_classes");

    private final String out;
    private final SerializableConfiguration conf;

    RankLocalTask(String out, SerializableConfiguration conf) {
        this.out = out;
        this.conf = conf;
    }

    @Override
    public TaskOutcome call(TraceRef ref) throws Exception {
        long start = System.nanoTime();
        java.nio.file.Path scratch = Files.createDirectories(scratchRoot().resolve("steptrace-" + UUID.randomUUID()));
        try {
            Path src = new Path(ref.uri());
            FileSystem srcFs = src.getFileSystem(conf.value());
            long bytes = srcFs.getFileStatus(src).getLen();
            // The capture's directory name is kept: the capture is named after it, as on one machine.
            java.nio.file.Path local = Files.createDirectories(scratch.resolve("trace").resolve(ref.capture()))
                    .resolve(src.getName());
            srcFs.copyToLocalFile(false, src, new Path(local.toUri()), true);
            try (Steptrace st = Steptrace.openOrCreate(scratch.resolve("store.duckdb"))) {
                try (Statement s = st.connection().createStatement()) {
                    // One task, its share of the executor's cores: DuckDB would otherwise take them all.
                    s.execute("SET threads = " + Math.max(1, TaskContext.get() == null ? 1 : TaskContext.get().cpus()));
                }
                IngestReport report = st.ingest(List.of(local), IngestOptions.defaults(), IngestListener.NONE);
                FileOutcome file = report.files().isEmpty() ? null : report.files().get(0);
                if (file == null || !file.status().usable()) {
                    return new TaskOutcome(ref.uri(), ref.capture(), null, file == null ? "skipped" : file.status().id(),
                            file == null ? "not a trace" : file.reason(), Map.of(), bytes, seconds(start));
                }
                st.prepareReports(report);
                // The dataset names the trace where it lives, not the scratch copy that was read (the task's
                // store holds that one file).
                try (PreparedStatement ps = st.connection().prepareStatement("UPDATE files SET path = ?")) {
                    ps.setString(1, ref.uri());
                    ps.executeUpdate();
                }
                java.nio.file.Path dataset = scratch.resolve("dataset");
                Map<String, Long> rows = new TreeMap<>();
                for (ParquetExport.Written w : ParquetExport.write(st.connection(), null, dataset,
                        EnumSet.of(ParquetExport.Layout.CAPTURE_RANK, ParquetExport.Layout.CAPTURE))) {
                    if (w.layout() == ParquetExport.Layout.CAPTURE && !CAPTURE_TABLES.contains(w.table())) {
                        // The rest is of the task's ranks alone: the cross-rank stage writes the capture's.
                        OutputFiles.deleteTree(dataset.resolve(w.table()));
                    } else if (w.rows() > 0) {
                        rows.put(w.table(), w.rows());
                    }
                }
                upload(dataset, ref.key());
                return new TaskOutcome(ref.uri(), ref.capture(), file.rank(), file.status().id(), file.reason(), rows,
                        bytes, seconds(start));
            }
        } finally {
            OutputFiles.deleteTree(scratch);
        }
    }

    /** Copies the partition files to the output, each named after the trace (a retry replaces them). */
    private void upload(java.nio.file.Path dataset, String key) throws IOException {
        Path root = new Path(out);
        FileSystem fs = root.getFileSystem(conf.value());
        List<java.nio.file.Path> files;
        try (Stream<java.nio.file.Path> walk = Files.walk(dataset)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (java.nio.file.Path f : files) {
            java.nio.file.Path rel = dataset.relativize(f.getParent());
            Path dir = root;
            for (java.nio.file.Path part : rel) {
                dir = new Path(dir, part.toString());
            }
            fs.copyFromLocalFile(false, true, new Path(f.toUri()), new Path(dir, key + ".parquet"));
        }
    }

    /**
     * The executor's local scratch space: the directories Spark gives it (YARN's LOCAL_DIRS, Spark's
     * SPARK_LOCAL_DIRS on standalone and Kubernetes), else the JVM's temporary directory.
     */
    private static java.nio.file.Path scratchRoot() {
        for (String env : new String[] {"SPARK_LOCAL_DIRS", "LOCAL_DIRS"}) {
            String dirs = System.getenv(env);
            if (dirs != null && !dirs.isBlank()) {
                return java.nio.file.Path.of(dirs.split(",")[0]);
            }
        }
        return java.nio.file.Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
