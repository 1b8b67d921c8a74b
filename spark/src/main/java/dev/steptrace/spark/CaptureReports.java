package dev.steptrace.spark;

import dev.steptrace.analysis.AnalysisKey;
import dev.steptrace.analysis.ReportBuilder;
import dev.steptrace.analysis.StoredAnalysis;
import dev.steptrace.api.Steptrace;
import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.IndexWriter;
import dev.steptrace.report.ReportIndex;
import dev.steptrace.report.ReportJson;
import dev.steptrace.roofline.RooflineInputs;
import dev.steptrace.store.ParquetExport;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * report.json per capture, and the index of them, made by the CLI's own report code ({@link ReportBuilder})
 * from the dataset: a capture's analysis tables are copied from the dataset into a store in scratch space,
 * as the CLI keeps them, and read from there. The capture's figures are the cross-rank stage's
 * ({@code collective_waits} as {@code collective_instances}, {@code collective_arrivals}, {@code step_waits}
 * into {@code step_metrics}); the rest is the tasks' rank-local rows. Written as
 * {@code --out/reports/<capture>/report.json} and {@code --out/reports/index.json}.
 */
final class CaptureReports {
    /** Tables of the store the report reads besides the analysis tables (those with an {@code analysis_key}). */
    private static final Set<String> EVENT_TABLES = Set.of("files", "devices", "op_shapes");
    /** Store tables whose capture-wide rows the cross-rank stage wrote, by the dataset table holding them. */
    private static final Map<String, String> CROSS_RANK = Map.of("collective_instances", "collective_waits",
            "collective_arrivals", "collective_arrivals");
    /** Analysis bookkeeping the report does not read: a store assembled here has no analysis run of its own. */
    private static final Set<String> NOT_READ = Set.of("analyses", "analysis_warnings", "captures");
    private static final int CAPTURE_ID = 1;

    private CaptureReports() {}

    /** Writes each capture's report.json and the index. */
    static void write(Configuration conf, String out, Set<String> captures,
                                               java.nio.file.Path scratch) throws IOException, SQLException, StoreException {
        Path reportsDir = new Path(out, "reports");
        FileSystem fs = reportsDir.getFileSystem(conf);
        List<ReportIndex.Entry> entries = new ArrayList<>();
        for (String capture : captures) {
            java.nio.file.Path dir = Files.createDirectories(scratch.resolve("report-" + entries.size()));
            BottleneckReport report = report(conf, out, capture, dir);
            java.nio.file.Path json = dir.resolve("report.json");
            ReportJson.write(report, json);
            fs.copyFromLocalFile(true, true, new Path(json.toUri()), new Path(new Path(reportsDir, capture), "report.json"));
            entries.add(ReportIndex.entry(report, capture + "/report.json"));
        }
        java.nio.file.Path indexDir = Files.createDirectories(scratch.resolve("index"));
        for (java.nio.file.Path p : IndexWriter.write(ReportIndex.of(Steptrace.version(), entries), indexDir, null,
                true, false, false)) {
            fs.copyFromLocalFile(true, true, new Path(p.toUri()), new Path(reportsDir, p.getFileName().toString()));
        }
    }

    /** One capture's report: its tables copied into a store in {@code dir}, then the CLI's report of them. */
    private static BottleneckReport report(Configuration conf, String out, String capture, java.nio.file.Path dir)
            throws IOException, SQLException, StoreException {
        try (Store store = Store.open(dir.resolve("capture.duckdb"))) {
            Connection c = store.connection();
            List<ParquetExport.Table> tables = ParquetExport.tables(c);
            java.nio.file.Path local = Files.createDirectories(dir.resolve("dataset"));
            Map<String, java.nio.file.Path> partitions = new HashMap<>();
            for (String t : sources(tables)) {
                java.nio.file.Path p = CapturePartitions.local(conf, new Path(out, t), capture, local.resolve(t));
                if (p != null) {
                    partitions.put(t, p);
                }
            }
            try (Statement s = c.createStatement()) {
                if (!partitions.containsKey("files")) {
                    throw new SQLException("the dataset has no files of capture " + capture);
                }
                // A file is (rank, file id) in the dataset (each task's store numbers its own files): numbered
                // again here, one id per file of the capture.
                s.execute("CREATE TEMP TABLE file_ids AS SELECT rank AS d_rank, file_id AS d_file_id,"
                        + " CAST(row_number() OVER (ORDER BY rank, file_id) AS INTEGER) AS file_id FROM "
                        + CapturePartitions.read(partitions.get("files"), true));
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO captures VALUES (?, ?, ?, NULL, current_timestamp)")) {
                    ps.setInt(1, CAPTURE_ID);
                    ps.setString(2, captureDir(c, partitions.get("files")));
                    ps.setString(3, capture);
                    ps.executeUpdate();
                }
                for (ParquetExport.Table t : tables) {
                    String source = CROSS_RANK.getOrDefault(t.name(), t.name());
                    if (read(t) && partitions.containsKey(source)) {
                        s.execute(insert(c, t, partitions.get(source), partitions.get("step_waits")));
                    }
                }
            }
            StoredAnalysis analysis = StoredAnalysis.assembled(c, CAPTURE_ID, AnalysisKey.DEFAULT);
            return new ReportBuilder(analysis, RooflineInputs.defaults()).build(Steptrace.version()).report();
        }
    }

    private static boolean read(ParquetExport.Table t) {
        return !NOT_READ.contains(t.name()) && (EVENT_TABLES.contains(t.name()) || t.columns().contains("analysis_key"));
    }

    /** The dataset tables to copy: those the report reads, the cross-rank stage's in place of the tasks'. */
    private static Set<String> sources(List<ParquetExport.Table> tables) {
        Set<String> out = new HashSet<>();
        for (ParquetExport.Table t : tables) {
            if (read(t)) {
                out.add(CROSS_RANK.getOrDefault(t.name(), t.name()));
            }
        }
        out.add("step_waits");
        return out;
    }

    /**
     * The INSERT of a store table's rows from its dataset rows: the capture is this store's one, files are
     * numbered again, a table's own rank is {@code row_rank} in the dataset (the file's rank is the partition),
     * and {@code step_metrics} takes the capture's waits from {@code step_waits}.
     */
    private static String insert(Connection c, ParquetExport.Table t, java.nio.file.Path dir, java.nio.file.Path stepWaits)
            throws SQLException {
        boolean perRank = t.layout() == ParquetExport.Layout.CAPTURE_RANK;
        String from = CapturePartitions.read(dir, perRank);
        Set<String> have = CapturePartitions.columns(c, from);
        boolean waits = t.name().equals("step_metrics") && stepWaits != null;
        List<String> select = new ArrayList<>();
        for (String col : t.columns()) {
            select.add(switch (col) {
                case "capture_id" -> String.valueOf(CAPTURE_ID);
                case "analysis_key" -> have.contains(col) ? "d.analysis_key" : "'" + AnalysisKey.DEFAULT + "'";
                case "file_id" -> "m.file_id";
                case "rank" -> have.contains(ParquetExport.ROW_RANK) ? "d." + ParquetExport.ROW_RANK : "d.rank";
                case "last_file_id" -> "(SELECT file_id FROM file_ids WHERE d_rank = d.last_rank AND d_file_id = d.last_file_id)";
                case "wait_ns", "compute_ns" -> waits ? "w." + col : have.contains(col) ? "d." + col : "NULL";
                default -> have.contains(col) ? "d." + col : "NULL";
            });
        }
        String sql = "INSERT INTO " + t.name() + " SELECT " + (t.name().equals("kernel_classes") ? "DISTINCT " : "")
                + String.join(", ", select) + " FROM " + from;
        if (t.columns().contains("file_id")) {
            sql += " JOIN file_ids m ON m.d_rank = d.rank AND m.d_file_id = d.file_id";
        }
        if (waits) {
            sql += " LEFT JOIN " + CapturePartitions.read(stepWaits, true).replaceAll(" d$", " w")
                    + " ON w.rank = d.rank AND w.file_id = d.file_id AND w.step = d.step";
        }
        return sql;
    }

    /** The capture's directory: where its traces are (their common parent, as {@code files.path} names them). */
    private static String captureDir(Connection c, java.nio.file.Path files) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT min(path) FROM "
                + CapturePartitions.read(files, true))) {
            rs.next();
            String path = rs.getString(1);
            return new Path(path).getParent().toString();
        }
    }
}
