package dev.steptrace.spark;

import dev.steptrace.api.IngestListener;
import dev.steptrace.api.Steptrace;
import dev.steptrace.common.FileKind;
import dev.steptrace.common.OutputFiles;
import dev.steptrace.ingest.FileOutcome;
import dev.steptrace.ingest.IngestOptions;
import dev.steptrace.ingest.IngestReport;
import dev.steptrace.store.ParquetExport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.util.LongAccumulator;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The rank-local part of the analysis, one partition of traces per task: the traces are copied into the
 * task's scratch space, read by steptrace's own importers into one embedded store there, analysed as
 * {@code steptrace ingest} analyses them, and the store's rows are exported as the dataset's partition files
 * ({@link ParquetExport}, the same code as {@code steptrace export}), then copied to the output. One store per
 * task rather than per trace: its start, the analysis's statements and the export's COPYs are paid once for
 * all the task's traces. docs/spark.md says why an embedded store rather than rows built straight into Spark.
 */
final class RankLocalTask implements FlatMapFunction<Iterator<TraceRef>, TaskOutcome> {
    private static final long serialVersionUID = 1L;
    /**
     * Tables of a capture as a whole that a task writes too, its rows among the capture's: the classes of
     * the names its files hold (the capture's are their union).
     */
    static final Set<String> CAPTURE_TABLES = Set.of("kernel_classes");

    private final String out;
    private final SerializableConfiguration conf;
    /** Traces each task was given: Spark records every task's share (docs/spark.md, "Tasks"). */
    private final LongAccumulator traces;
    /** Threads for the ingest and DuckDB: the cores the job's tasks leave idle are shared among them. */
    private final int threads;

    RankLocalTask(String out, SerializableConfiguration conf, LongAccumulator traces, int threads) {
        this.out = out;
        this.conf = conf;
        this.traces = traces;
        this.threads = threads;
    }

    @Override
    public Iterator<TaskOutcome> call(Iterator<TraceRef> refs) throws Exception {
        int partition = TaskContext.get() == null ? 0 : TaskContext.getPartitionId();
        int cpus = Math.max(threads, TaskContext.get() == null ? 1 : TaskContext.get().cpus());
        java.nio.file.Path scratch = Files.createDirectories(scratchRoot().resolve("steptrace-" + UUID.randomUUID()));
        try {
            // Each trace under a directory named after its capture: ingest names the capture after it, as on
            // one machine, and groups a capture's traces of this task into one capture of the store.
            Map<String, TraceRef> byLocalName = new HashMap<>();
            Map<String, Long> bytes = new HashMap<>();
            List<java.nio.file.Path> locals = new ArrayList<>();
            List<TaskOutcome> unread = new ArrayList<>();
            while (refs.hasNext()) {
                TraceRef ref = refs.next();
                traces.add(1);
                Path src = new Path(ref.uri());
                FileSystem srcFs = src.getFileSystem(conf.value());
                bytes.put(ref.uri(), ref.bytes());
                String special = srcFs instanceof LocalFileSystem local ? FileKind.notRegular(local.pathToFile(src).toPath()) : null;
                if (special != null) {
                    // A FIFO would block the copy until something writes to it; a device would never end.
                    unread.add(new TaskOutcome(ref.uri(), ref.capture(), null, FileOutcome.Status.SKIPPED.id(), special,
                            Map.of(), ref.bytes(), 0, partition));
                    continue;
                }
                java.nio.file.Path local = Files.createDirectories(scratch.resolve("trace").resolve(ref.capture()))
                        .resolve(src.getName());
                srcFs.copyToLocalFile(false, src, new Path(local.toUri()), true);
                byLocalName.put(localName(local), ref);
                locals.add(local);
            }
            if (locals.isEmpty()) {
                return unread.iterator();
            }
            try (Steptrace st = Steptrace.openOrCreate(scratch.resolve("store.duckdb"))) {
                try (Statement s = st.connection().createStatement()) {
                    // The task's share of the cores: DuckDB would otherwise take them all.
                    s.execute("SET threads = " + cpus);
                }
                IngestOptions defaults = IngestOptions.defaults();
                IngestReport report = st.ingest(locals, new IngestOptions(cpus, defaults.keepPythonFunctions(),
                        defaults.helperThreads()), IngestListener.NONE);
                Map<String, Map<String, Long>> rows = new HashMap<>();
                if (!twoFilesOfOneRank(report, byLocalName)) {
                    st.prepareReports(report);
                    Connection c = st.connection();
                    nameFilesAndCaptures(c, report, byLocalName);
                    java.nio.file.Path dataset = scratch.resolve("dataset");
                    for (ParquetExport.Written w : ParquetExport.write(c, null, dataset,
                            EnumSet.of(ParquetExport.Layout.CAPTURE_RANK, ParquetExport.Layout.CAPTURE))) {
                        if (w.layout() == ParquetExport.Layout.CAPTURE && !CAPTURE_TABLES.contains(w.table())) {
                            // The rest is of the task's ranks alone: the cross-rank stage writes the capture's.
                            OutputFiles.deleteTree(dataset.resolve(w.table()));
                        } else if (w.rows() > 0 && w.layout() == ParquetExport.Layout.CAPTURE_RANK) {
                            countRows(c, w.table(), rows);
                        }
                    }
                    upload(dataset, keys(c));
                }
                List<TaskOutcome> outcomes = new ArrayList<>(unread);
                for (FileOutcome f : report.files()) {
                    TraceRef ref = byLocalName.remove(localName(f.path()));
                    boolean usable = f.status().usable();
                    outcomes.add(new TaskOutcome(ref.uri(), ref.capture(), usable ? f.rank() : null, f.status().id(),
                            f.reason(), usable ? rows.getOrDefault(ref.uri(), Map.of()) : Map.of(), bytes.get(ref.uri()),
                            f.seconds(), partition));
                }
                for (TraceRef ref : byLocalName.values()) {
                    outcomes.add(new TaskOutcome(ref.uri(), ref.capture(), null, FileOutcome.Status.SKIPPED.id(),
                            "not a trace", Map.of(), bytes.get(ref.uri()), 0, partition));
                }
                return outcomes.iterator();
            }
        } finally {
            OutputFiles.deleteTree(scratch);
        }
    }

    /**
     * Whether two of the task's loaded traces are one rank of one capture (directory): the dataset keys a
     * capture's rows by rank, so nothing of the task is written, and the driver refuses the run naming them
     * ({@link SparkAnalysis#oneFilePerRank}).
     */
    private static boolean twoFilesOfOneRank(IngestReport report, Map<String, TraceRef> byLocalName) {
        Set<String> seen = new HashSet<>();
        for (FileOutcome f : report.files()) {
            if (f.status().usable() && f.rank() != null
                    && !seen.add(byLocalName.get(localName(f.path())).capture() + "/" + f.rank())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The dataset names each trace where it lives, not the scratch copy that was read, and each capture after
     * its directory (docs/spark.md: a capture is a directory; its traces may be spread over several tasks).
     */
    private static void nameFilesAndCaptures(Connection c, IngestReport report, Map<String, TraceRef> byLocalName)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE files SET path = ? WHERE path = ?")) {
            for (FileOutcome f : report.files()) {
                if (f.status().usable()) {
                    ps.setString(1, byLocalName.get(localName(f.path())).uri());
                    ps.setString(2, f.path().toString());
                    ps.addBatch();
                }
            }
            ps.executeBatch();
        }
        Map<Integer, String> names = new TreeMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT capture_id, path FROM captures")) {
            while (rs.next()) {
                names.put(rs.getInt(1), java.nio.file.Path.of(rs.getString(2)).getFileName().toString());
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE captures SET name = ? WHERE capture_id = ?")) {
            for (Map.Entry<Integer, String> e : names.entrySet()) {
                ps.setString(1, e.getValue());
                ps.setInt(2, e.getKey());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** A table's rows per trace, added to {@code rows} (trace, then table). */
    private static void countRows(Connection c, String table, Map<String, Map<String, Long>> rows) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT f.path, count(*) FROM \"" + table
                + "\" t JOIN files f USING (file_id) GROUP BY f.path")) {
            while (rs.next()) {
                rows.computeIfAbsent(rs.getString(1), k -> new TreeMap<>()).put(table, rs.getLong(2));
            }
        }
    }

    /**
     * The name of each output file, by partition directory ({@code capture=<name>/rank=<rank>}, and
     * {@code capture=<name>} for the capture's tables): derived from the paths of the traces whose rows it
     * holds, so that a retried task, or a run over the same traces in other partitions, replaces it.
     */
    private static Map<String, String> keys(Connection c) throws SQLException {
        Map<String, Set<String>> traces = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT c.name, f.rank, f.path FROM files f JOIN captures c USING (capture_id)")) {
            while (rs.next()) {
                String capture = rs.getString(1);
                // DuckDB writes a NULL partition value as NULL.
                String rank = rs.getObject(2) == null ? "NULL" : rs.getObject(2).toString();
                traces.computeIfAbsent(partitionKey(capture, rank), k -> new TreeSet<>())
                        .add(rs.getString(3));
                traces.computeIfAbsent(partitionKey(capture, null), k -> new TreeSet<>()).add(rs.getString(3));
            }
        }
        Map<String, String> out = new HashMap<>();
        traces.forEach((k, paths) -> out.put(k, UUID.nameUUIDFromBytes(String.join("\n", paths)
                .getBytes(StandardCharsets.UTF_8)).toString()));
        return out;
    }

    private static String partitionKey(String capture, String rank) {
        return rank == null ? capture : capture + "\n" + rank;
    }

    /** Puts the partition files into the output, each named after the traces it holds (see {@link #keys}). */
    private void upload(java.nio.file.Path dataset, Map<String, String> keys) throws IOException {
        Path root = new Path(out);
        FileSystem fs = root.getFileSystem(conf.value());
        List<java.nio.file.Path> files;
        try (Stream<java.nio.file.Path> walk = Files.walk(dataset)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (java.nio.file.Path f : files) {
            java.nio.file.Path rel = dataset.relativize(f.getParent());
            Path dir = root;
            String capture = null;
            String rank = null;
            for (java.nio.file.Path part : rel) {
                String p = part.toString();
                if (p.startsWith(ParquetExport.CAPTURE + "=")) {
                    capture = ParquetExport.percentDecode(p.substring(ParquetExport.CAPTURE.length() + 1));
                } else if (p.startsWith(ParquetExport.RANK + "=")) {
                    rank = ParquetExport.percentDecode(p.substring(ParquetExport.RANK.length() + 1));
                }
                dir = new Path(dir, p);
            }
            String key = keys.get(partitionKey(capture, rank));
            if (key == null) {
                throw new IOException("the export wrote " + rel + ", of no trace of this task");
            }
            Path to = new Path(dir, key + ".parquet");
            if (fs instanceof LocalFileSystem local) {
                // The same disk (local mode): moved, not copied and deleted with the scratch space.
                java.nio.file.Path target = local.pathToFile(to).toPath();
                Files.createDirectories(target.getParent());
                Files.move(f, target, StandardCopyOption.REPLACE_EXISTING);
            } else {
                fs.copyFromLocalFile(false, true, new Path(f.toUri()), to);
            }
        }
    }

    /** A trace's scratch copy as {@code <capture directory>/<file name>}, however ingest spelled its path. */
    private static String localName(java.nio.file.Path p) {
        return p.getParent().getFileName() + "/" + p.getFileName();
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
}
