package dev.steptrace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.testing.TestData;
import dev.steptrace.testsupport.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code steptrace export --parquet}: the three sample captures (and a capture whose name needs escaping)
 * exported, then read back by DuckDB as a Hive-partitioned dataset; every count and sum is compared with
 * the same figure queried here straight from the store, table by table as the store's catalogue lists them.
 */
class ParquetExportTest {
    @TempDir
    static Path tmp;

    private static Path db;
    private static Path dataset;
    /** A capture directory whose name a path cannot hold as it is. */
    private static final String ODD_NAME = "run 1=a%b+é";

    @BeforeAll
    static void ingestAndExport() throws Exception {
        db = tmp.resolve("store.duckdb");
        Path odd = Files.createDirectories(tmp.resolve(ODD_NAME));
        Files.copy(TestData.smallTraces().resolve("h200_tp2_moe_decode_rank0_slice.pt.trace.json.gz"),
                odd.resolve("rank0.pt.trace.json.gz"));
        Cli.assertExit(0, Cli.run("ingest", TestData.sampleTraces().toString(), odd.toString(), "--db", db.toString(),
                "--quiet"));
        dataset = tmp.resolve("dataset");
        Cli.Result r = Cli.run("export", "--all", "--parquet", dataset.toString(), "--db", db.toString());
        Cli.assertExit(0, r);
        assertTrue(r.err().contains("gpu_ops"), r.describe());
    }

    @Test
    void everyTableOfTheStoreReadsBackWithItsCountsAndSums() throws Exception {
        try (Connection store = readOnly(db); Connection duck = DuckDb.inMemory()) {
            List<String> tables = strings(store, "SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY 1");
            assertTrue(tables.containsAll(List.of("files", "gpu_ops", "cpu_ops", "launches", "names", "comm_meta")), tables.toString());
            int checked = 0;
            for (String table : tables) {
                long rows = single(store, "SELECT count(*) FROM " + table);
                Path dir = dataset.resolve(table);
                if (rows == 0) {
                    assertFalse(Files.exists(dir), table + " has no rows: nothing written");
                    continue;
                }
                String read = "read_parquet('" + dir + "/**/*.parquet', hive_partitioning = true, union_by_name = true)";
                assertEquals(rows, single(duck, "SELECT count(*) FROM " + read), table);
                for (String column : strings(store, "SELECT column_name FROM information_schema.columns WHERE table_name = '"
                        + table + "' AND data_type IN ('BIGINT', 'INTEGER', 'DOUBLE', 'UBIGINT') AND column_name <> 'rank'")) {
                    Object expected = sum(store, "SELECT sum(" + column + ") FROM " + table);
                    Object actual = sum(duck, "SELECT sum(" + column + ") FROM " + read);
                    if (expected instanceof Double e && actual instanceof Double a) {
                        // A sum of DOUBLEs depends on the order of the additions in its last bits.
                        assertEquals(e, a, Math.abs(e) * 1e-12, table + "." + column);
                    } else {
                        assertEquals(String.valueOf(expected), String.valueOf(actual), table + "." + column);
                    }
                    checked++;
                }
            }
            assertTrue(checked > 50, "numeric columns compared: " + checked);
            List<String> exported = strings(duck, "SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet('"
                    + dataset.resolve("files") + "/**/*.parquet', hive_partitioning = true))");
            assertTrue(exported.contains("content_hash") && !exported.contains("file_stat"), exported.toString());
        }
    }

    @Test
    void eventsArePartitionedByTheCaptureNameAndTheFilesRank() throws Exception {
        String byHand = """
                SELECT c.name, f.rank, count(*), sum(g.dur_ns), min(g.ts_ns)
                FROM gpu_ops g JOIN files f ON f.file_id = g.file_id JOIN captures c ON c.capture_id = f.capture_id
                GROUP BY ALL ORDER BY ALL""";
        String fromDataset = "SELECT capture, rank, count(*), sum(dur_ns), min(ts_ns) FROM read_parquet('"
                + dataset.resolve("gpu_ops") + "/*/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL";
        try (Connection store = readOnly(db); Connection duck = DuckDb.inMemory()) {
            List<String> expected = rows(store, byHand);
            assertEquals(7, expected.size(), "three two-rank captures and the one-file capture: " + expected);
            assertTrue(expected.stream().anyMatch(r -> r.startsWith(ODD_NAME + "|0|")), expected.toString());
            assertEquals(expected, rows(duck, fromDataset));
            // comm_meta's own rank (what the collective's metadata names) is kept, renamed.
            assertEquals(rows(store, "SELECT c.name, f.rank, m.rank, count(*) FROM comm_meta m JOIN files f USING (file_id)"
                            + " JOIN captures c ON c.capture_id = f.capture_id GROUP BY ALL ORDER BY ALL"),
                    rows(duck, "SELECT capture, rank, row_rank, count(*) FROM read_parquet('" + dataset.resolve("comm_meta")
                            + "/*/*/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL"));
        }
    }

    @Test
    void exportingACaptureAgainReplacesOnlyItsPartitions() throws Exception {
        Path again = tmp.resolve("again");
        Cli.assertExit(0, Cli.run("export", "--all", "--parquet", again.toString(), "--db", db.toString(), "--quiet"));
        Map<String, Long> before = filesPerCapture(again.resolve("gpu_ops"));
        Cli.assertExit(0, Cli.run("export", ODD_NAME, "--parquet", again.toString(), "--db", db.toString(), "--quiet"));
        Cli.assertExit(0, Cli.run("export", tmp.resolve(ODD_NAME).toString(), "--parquet", again.toString(), "--db",
                db.toString(), "--quiet"));
        assertEquals(before, filesPerCapture(again.resolve("gpu_ops")), "no second copy of the capture's rows");
        try (Connection store = readOnly(db); Connection duck = DuckDb.inMemory()) {
            assertEquals(single(store, "SELECT count(*) FROM gpu_ops"), single(duck, "SELECT count(*) FROM read_parquet('"
                    + again.resolve("gpu_ops") + "/*/*/*.parquet')"));
        }
    }

    @Test
    void usageErrorsAndAnUnknownCaptureAreOneLine() {
        Cli.assertExit(2, Cli.run("export", "--all", "--db", db.toString()));
        Cli.assertExit(2, Cli.run("export", "x", "--all", "--parquet", tmp.resolve("u").toString(), "--db", db.toString()));
        Cli.Result r = Cli.run("export", "no-such-capture", "--parquet", tmp.resolve("u").toString(), "--db", db.toString());
        Cli.assertExit(1, r);
        assertTrue(r.err().contains("no-such-capture"), r.describe());
    }

    private static Map<String, Long> filesPerCapture(Path tableDir) throws Exception {
        Map<String, Long> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(tableDir)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                out.merge(tableDir.relativize(p).getName(0).toString(), 1L, Long::sum);
            }
        }
        return out;
    }

    private static Connection readOnly(Path file) throws SQLException {
        Properties p = new Properties();
        p.setProperty("duckdb.read_only", "true");
        return DuckDb.connect(file, p);
    }

    private static long single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** A sum as text (exact for integers of any size, and for doubles summed in the same order of magnitude). */
    private static Object sum(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getObject(1);
        }
    }

    private static List<String> strings(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static List<String> rows(Connection c, String sql) throws SQLException {
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
