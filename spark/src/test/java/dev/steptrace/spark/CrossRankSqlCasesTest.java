package dev.steptrace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.analysis.ViewScript;
import dev.steptrace.store.DuckDb;
import dev.steptrace.store.ParquetExport;
import dev.steptrace.store.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * cross-rank.sql on hand-made cases (src/test/resources/cross-rank-cases/): the same Parquet files, the
 * views run by DuckDB and by Spark (the application's own stage), each compared with the rows worked out
 * by hand in the case file.
 */
class CrossRankSqlCasesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path CASES = SparkTests.sampleTraces().resolveSibling("spark/src/test/resources/cross-rank-cases");

    private static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkTests.localSession(1);
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    static Stream<Path> cases() throws Exception {
        return Files.list(CASES).filter(p -> p.toString().endsWith(".json")).sorted();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void bothEnginesGiveTheRowsWorkedOutByHand(Path caseFile, @TempDir Path dir) throws Exception {
        JsonNode c = JSON.readTree(caseFile.toFile());
        Path dataset = writeTables(c.get("tables"), dir);

        Path out = dir.resolve("spark-out");
        copyTree(dataset, out);
        CrossRankStage.run(spark, out.toString(), Set.of("c"), dir.resolve("scratch"));

        try (Connection duck = DuckDb.inMemory(); Statement s = duck.createStatement()) {
            for (Map.Entry<String, String> in : CrossRankStage.INPUTS.entrySet()) {
                // The default analysis's rows, as the application's views of the dataset hold them.
                s.execute("CREATE VIEW " + in.getValue() + " AS SELECT * FROM read_parquet('" + dataset.resolve(in.getKey())
                        + "/*.parquet')" + (in.getKey().equals("files") ? "" : " WHERE analysis_key = 'default'"));
            }
            ViewScript.CROSS_RANK.create(duck);
            for (Iterator<Map.Entry<String, JsonNode>> it = c.get("expected").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String columns = e.getValue().get("columns").asText();
                List<String> expected = new ArrayList<>();
                e.getValue().get("rows").forEach(r -> expected.add(r.asText()));
                expected.sort(null);
                assertEquals(expected, duckRows(duck, "SELECT " + columns + " FROM " + e.getKey()), "DuckDB, " + e.getKey());
                assertEquals(expected, sparkRows("SELECT " + columns + " FROM parquet.`" + out.resolve(e.getKey()) + "`"),
                        "Spark, " + e.getKey());
            }
        }
    }

    /**
     * The case's rows as one Parquet file per table, with the columns and types the dataset has
     * ({@link ParquetExport#rows} over an empty store); columns the case leaves out are NULL.
     */
    private static Path writeTables(JsonNode tables, Path dir) throws Exception {
        Path dataset = Files.createDirectories(dir.resolve("dataset"));
        try (Store store = Store.open(dir.resolve("types.duckdb")); Statement s = store.connection().createStatement()) {
            for (ParquetExport.Table t : ParquetExport.tables(store.connection())) {
                JsonNode rows = tables.get(t.name());
                if (rows == null) {
                    continue;
                }
                Path json = dir.resolve(t.name() + ".json");
                StringBuilder lines = new StringBuilder();
                rows.forEach(r -> lines.append(r).append('\n'));
                Files.writeString(json, lines);
                s.execute("CREATE TEMP TABLE case_" + t.name() + " AS " + ParquetExport.rows(t, List.of()));
                s.execute("INSERT INTO case_" + t.name() + " BY NAME SELECT * FROM read_json('" + json
                        + "', format = 'newline_delimited')");
                Files.createDirectories(dataset.resolve(t.name()));
                s.execute("COPY case_" + t.name() + " TO '" + dataset.resolve(t.name()).resolve("data.parquet")
                        + "' (FORMAT parquet)");
            }
        }
        return dataset;
    }

    private static void copyTree(Path from, Path to) throws Exception {
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

    private static List<String> duckRows(Connection c, String sql) throws Exception {
        List<String> out = new ArrayList<>(SparkTests.rows(c, sql));
        assertFalse(out.isEmpty(), sql);
        out.sort(null);
        return out;
    }

    private static List<String> sparkRows(String sql) {
        List<String> out = new ArrayList<>(SparkTests.rows(spark, sql));
        out.sort(null);
        return out;
    }
}
