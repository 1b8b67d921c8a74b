package dev.steptrace.spark;

import dev.steptrace.store.DuckDb;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** What the Spark tests share: the repository's sample captures and a local session. */
final class SparkTests {
    private SparkTests() {}

    /** {@code sample-traces/} of the repository (tests run in the module's directory). */
    static Path sampleTraces() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("sample-traces"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no sample-traces/ above " + Path.of("").toAbsolutePath());
        }
        return dir.resolve("sample-traces");
    }

    /** Copies a directory and everything under it. */
    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    /** A local session of {@code cores} cores, small and quiet (no UI, few shuffle partitions). */
    static SparkSession localSession(int cores) {
        return SparkSession.builder().master("local[" + cores + "]").appName("steptrace-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", String.valueOf(cores))
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .getOrCreate();
    }

    /** A Spark query's rows, each as its cells' text joined by '|', in the query's order. */
    static List<String> rows(SparkSession spark, String sql) {
        List<String> out = new ArrayList<>();
        for (Row r : spark.sql(sql).collectAsList()) {
            List<String> cells = new ArrayList<>();
            for (int i = 0; i < r.size(); i++) {
                cells.add(String.valueOf(r.get(i)));
            }
            out.add(String.join("|", cells));
        }
        return out;
    }

    /** A query's rows of the store {@code db}, opened read-only. */
    static List<String> rows(Path db, String sql) throws SQLException {
        Properties p = new Properties();
        p.setProperty("duckdb.read_only", "true");
        try (Connection c = DuckDb.connect(db, p)) {
            return rows(c, sql);
        }
    }

    /** Every collective instance of every rank in the CLI's store {@code db}, in the order of {@link #sparkInstances}. */
    static List<String> cliInstances(Path db) throws SQLException {
        return rows(db, """
                SELECT c.name, i.rank, i.phase, i.phase_index, i.type, i.k, i.dur_ns, i.transfer_ns, i.wait_ns, i.after_category
                FROM collective_instances i JOIN captures c USING (capture_id) WHERE i.analysis_key = 'default'
                ORDER BY 1, 2, 3, 4, 5, 6""");
    }

    /** The same of the dataset {@code out}: the cross-rank stage's {@code collective_waits}. */
    static List<String> sparkInstances(SparkSession spark, Path out) {
        // The partition column rank is read as text (DatasetViews turns type inference off): ordered as a number.
        return rows(spark, "SELECT capture, CAST(rank AS INT), phase, phase_index, type, k, dur_ns, transfer_ns, wait_ns,"
                + " after_category FROM parquet.`" + out.resolve("collective_waits") + "` ORDER BY 1, 2, 3, 4, 5, 6");
    }

    /** Every instance's arrival (last rank, lateness, wait) in the CLI's store, in the order of {@link #sparkArrivals}. */
    static List<String> cliArrivals(Path db) throws SQLException {
        return rows(db, """
                SELECT c.name, a.phase, a.phase_index, a.type, a.k, a.ranks, a.last_rank, a.transfer_ns, a.lateness_ns, a.wait_ns,
                       a.after_category
                FROM collective_arrivals a JOIN captures c USING (capture_id) WHERE a.analysis_key = 'default'
                ORDER BY 1, 2, 3, 4, 5""");
    }

    /** The same of the dataset {@code out}. */
    static List<String> sparkArrivals(SparkSession spark, Path out) {
        return rows(spark, "SELECT capture, phase, phase_index, type, k, ranks, last_rank, transfer_ns, lateness_ns, wait_ns,"
                + " after_category FROM parquet.`" + out.resolve("collective_arrivals") + "` ORDER BY 1, 2, 3, 4, 5");
    }

    /** A DuckDB query's rows, as {@link #rows(SparkSession, String)} gives Spark's. */
    static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> cells = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    cells.add(String.valueOf(rs.getObject(i)));
                }
                out.add(String.join("|", cells));
            }
        }
        return out;
    }
}
