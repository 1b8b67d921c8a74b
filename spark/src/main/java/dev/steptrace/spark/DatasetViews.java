package dev.steptrace.spark;

import dev.steptrace.analysis.AnalysisKey;
import dev.steptrace.store.ParquetExport;
import dev.steptrace.store.Store;
import dev.steptrace.store.StoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/** Tables of a dataset (docs/export.md) as Spark temporary views of the same names. */
final class DatasetViews {
    private DatasetViews() {}

    /**
     * Registers tables of the dataset at {@code out} as views, with their partition columns: {@code capture}
     * as text (a capture named 2026-01-01 stays a name, not a date) and {@code rank} as a number; rows of
     * analyses other than the default one are left out (the tasks make only that one).
     *
     * @param tables   table name to view name
     * @param captures only these captures' rows, or null for all
     * @param scratch  a local directory for the empty file of a store table that no row of was written
     */
    static void register(SparkSession spark, String out, Map<String, String> tables, Collection<String> captures,
                         java.nio.file.Path scratch) throws IOException, SQLException, StoreException {
        spark.conf().set("spark.sql.sources.partitionColumnTypeInference.enabled", "false");
        // A table of many ranks is hundreds of partition directories: Spark lists them in a job of one task per
        // directory (each task deserialising the Hadoop configuration), slower than the listing itself; one task
        // per core lists them as fast, on a cluster's object store too.
        spark.conf().set("spark.sql.sources.parallelPartitionDiscovery.parallelism",
                String.valueOf(spark.sparkContext().defaultParallelism()));
        FileSystem fs = new Path(out).getFileSystem(spark.sparkContext().hadoopConfiguration());
        for (Map.Entry<String, String> e : tables.entrySet()) {
            String table = e.getKey();
            Path dir = new Path(out, table);
            Dataset<Row> rows = fs.exists(dir)
                    ? spark.read().option("basePath", dir.toString()).parquet(dir.toString())
                    : spark.read().parquet(emptyTable(table, scratch).toString());
            if (List.of(rows.columns()).contains(ParquetExport.RANK)) {
                rows = rows.withColumn(ParquetExport.RANK, functions.col(ParquetExport.RANK).cast("int"));
            }
            if (captures != null) {
                rows = rows.where(functions.col(ParquetExport.CAPTURE).isin(captures.toArray()));
            }
            if (List.of(rows.columns()).contains("analysis_key")) {
                rows = rows.where(functions.col("analysis_key").equalTo(AnalysisKey.DEFAULT));
            }
            rows.createOrReplaceTempView(e.getValue());
        }
    }

    /**
     * An empty Parquet file with a store table's columns as the dataset has them (a run without collectives
     * writes no collective_instances), written by DuckDB from an empty store: the schema is the store's.
     */
    static java.nio.file.Path emptyTable(String table, java.nio.file.Path scratch) throws IOException, SQLException, StoreException {
        java.nio.file.Path dir = Files.createDirectories(scratch.resolve("empty"));
        java.nio.file.Path file = dir.resolve(table + ".parquet");
        try (Store store = Store.open(dir.resolve("schema.duckdb")); Statement s = store.connection().createStatement()) {
            Optional<ParquetExport.Table> t = ParquetExport.tables(store.connection()).stream()
                    .filter(x -> x.name().equals(table)).findFirst();
            if (t.isEmpty()) {
                throw new TraceInputs.InputException("the dataset has no table " + table);
            }
            s.execute("COPY (" + ParquetExport.rows(t.get(), List.of()) + ") TO '" + file + "' (FORMAT parquet)");
        }
        return file;
    }
}
