package dev.steptrace.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
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
