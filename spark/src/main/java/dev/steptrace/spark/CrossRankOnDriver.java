package dev.steptrace.spark;

import dev.steptrace.analysis.AnalysisKey;
import dev.steptrace.analysis.ViewScript;
import dev.steptrace.common.OutputFiles;
import dev.steptrace.store.DuckDb;
import dev.steptrace.store.ParquetExport;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The cross-rank stage run by DuckDB on the driver: the views of {@code cross-rank.sql} over the same rank-local
 * tables, written in the layout {@link CrossRankStage} writes, replacing this run's captures' partitions. For an
 * input of few rows, where Spark SQL's fixed cost (a job per input's listing and per write, planning and code
 * generation in a cold JVM: 20-50 CPU-seconds, docs/performance.md) would be most of the run; DuckDB's cost is in
 * proportion to the rows.
 */
final class CrossRankOnDriver {
    private CrossRankOnDriver() {}

    static void run(Configuration conf, String out, Set<String> captures, java.nio.file.Path scratch)
            throws IOException, SQLException, StoreException {
        java.nio.file.Path work = Files.createDirectories(scratch.resolve("cross-rank"));
        Properties props = new Properties();
        props.setProperty("memory_limit", Store.memoryLimit());
        // Spills, if any, go beside the database in scratch space.
        try (Connection c = DuckDb.connect(work.resolve("cross-rank.duckdb"), props);
             Statement s = c.createStatement()) {
            for (Map.Entry<String, String> in : CrossRankStage.INPUTS.entrySet()) {
                s.execute("CREATE TEMP VIEW " + in.getValue() + " AS " + rows(c, conf, out, in.getKey(), captures, work));
            }
            ViewScript.CROSS_RANK.create(c);
            java.nio.file.Path written = work.resolve("out");
            for (ViewScript.View v : ViewScript.CROSS_RANK.views()) {
                boolean perRank = CapturePartitions.columns(c, v.name()).contains(ParquetExport.RANK);
                java.nio.file.Path dir = Files.createDirectories(written.resolve(v.name()));
                s.execute("COPY (SELECT * FROM " + v.name() + ") TO '" + dir.toString().replace("'", "''")
                        + "' (FORMAT parquet, PARTITION_BY (" + ParquetExport.CAPTURE
                        + (perRank ? ", " + ParquetExport.RANK : "") + "), OVERWRITE_OR_IGNORE)");
                replace(conf, dir, new Path(out, v.name()), captures);
            }
        }
    }

    /**
     * The rows of a rank-local table of this run's captures, the default analysis's, as {@link DatasetViews}
     * gives them to Spark: {@code capture} the capture's name, {@code rank} from the partition directories.
     */
    private static String rows(Connection c, Configuration conf, String out, String table, Set<String> captures,
                               java.nio.file.Path work) throws IOException, SQLException, StoreException {
        List<String> selects = new ArrayList<>();
        for (String capture : captures) {
            java.nio.file.Path dir = CapturePartitions.local(conf, new Path(out, table), capture,
                    work.resolve("in").resolve(table).resolve(String.valueOf(selects.size())));
            if (dir == null) {
                continue;
            }
            String from = CapturePartitions.read(dir, true);
            boolean oneAnalysis = CapturePartitions.columns(c, from).contains("analysis_key");
            selects.add("SELECT '" + capture.replace("'", "''") + "' AS " + ParquetExport.CAPTURE + ", COLUMNS(x -> x <> '"
                    + ParquetExport.CAPTURE + "') FROM " + from
                    + (oneAnalysis ? " WHERE analysis_key = '" + AnalysisKey.DEFAULT + "'" : ""));
        }
        if (selects.isEmpty()) {
            // No rank wrote the table (a run without collectives): its columns, no rows.
            java.nio.file.Path empty = DatasetViews.emptyTable(table, work);
            return "SELECT * FROM read_parquet('" + empty.toString().replace("'", "''") + "')";
        }
        return String.join(" UNION ALL BY NAME ", selects);
    }

    /**
     * Puts the captures' partitions written under {@code from} in place of those under {@code to}: a capture's
     * earlier rows are removed first, whatever ranks they had.
     */
    private static void replace(Configuration conf, java.nio.file.Path from, Path to, Set<String> captures)
            throws IOException {
        FileSystem fs = to.getFileSystem(conf);
        if (fs.exists(to)) {
            for (FileStatus st : fs.listStatus(to)) {
                String name = st.getPath().getName();
                if (st.isDirectory() && name.startsWith(ParquetExport.CAPTURE + "=")
                        && captures.contains(ParquetExport.percentDecode(name.substring(ParquetExport.CAPTURE.length() + 1)))) {
                    fs.delete(st.getPath(), true);
                }
            }
        }
        List<java.nio.file.Path> files;
        try (Stream<java.nio.file.Path> walk = Files.walk(from)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        for (java.nio.file.Path f : files) {
            Path target = new Path(to, from.relativize(f).toString());
            if (fs instanceof LocalFileSystem local) {
                java.nio.file.Path t = local.pathToFile(target).toPath();
                Files.createDirectories(t.getParent());
                Files.move(f, t);
            } else {
                fs.copyFromLocalFile(true, true, new Path(f.toUri()), target);
            }
        }
        OutputFiles.deleteTree(from);
    }
}
