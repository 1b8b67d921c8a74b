package dev.steptrace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.steptrace.store.ParquetExport;
import dev.steptrace.store.Store;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * views run by Spark SQL and by DuckDB on the driver (the application's two ways of running the stage), each
 * compared with the rows worked out by hand in the case file.
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

        Path onSpark = dir.resolve("spark-out");
        SparkTests.copyTree(dataset, onSpark);
        CrossRankStage.run(spark, onSpark.toString(), Set.of("c"), dir.resolve("scratch"));
        Path onDriver = dir.resolve("driver-out");
        SparkTests.copyTree(dataset, onDriver);
        CrossRankOnDriver.run(spark.sparkContext().hadoopConfiguration(), onDriver.toString(), Set.of("c"),
                dir.resolve("driver-scratch"));

        for (Iterator<Map.Entry<String, JsonNode>> it = c.get("expected").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String columns = e.getValue().get("columns").asText();
            List<String> expected = new ArrayList<>();
            e.getValue().get("rows").forEach(r -> expected.add(r.asText()));
            expected.sort(null);
            assertEquals(expected, sparkRows("SELECT " + columns + " FROM parquet.`" + onSpark.resolve(e.getKey()) + "`"),
                    "Spark, " + e.getKey());
            assertEquals(expected, sparkRows("SELECT " + columns + " FROM parquet.`" + onDriver.resolve(e.getKey()) + "`"),
                    "DuckDB on the driver, " + e.getKey());
        }
    }

    /**
     * The case's rows as the dataset holds them: Parquet files by capture and rank, with the columns and types
     * the dataset has ({@link ParquetExport#rows} over an empty store); columns the case leaves out are NULL.
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
                s.execute("COPY case_" + t.name() + " TO '" + dataset.resolve(t.name()) + "' (FORMAT parquet, PARTITION_BY ("
                        + ParquetExport.CAPTURE + ", " + ParquetExport.RANK + "))");
            }
        }
        return dataset;
    }

    private static List<String> sparkRows(String sql) {
        List<String> out = new ArrayList<>(SparkTests.rows(spark, sql));
        assertFalse(out.isEmpty(), sql);
        out.sort(null);
        return out;
    }
}
