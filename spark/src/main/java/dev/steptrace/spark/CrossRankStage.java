package dev.steptrace.spark;

import dev.steptrace.analysis.ViewScript;
import dev.steptrace.store.ParquetExport;
import dev.steptrace.store.StoreException;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The cross-rank stage: the views of {@code cross-rank.sql} (the CLI's own, {@link ViewScript#CROSS_RANK})
 * over the rank-local tables the tasks wrote, run by Spark SQL, and written back into the dataset (tables
 * with a {@code rank} column by capture and rank, the others by capture), replacing only the partitions of
 * this run's captures. An input of few rows is run by DuckDB on the driver instead ({@link CrossRankOnDriver}).
 */
final class CrossRankStage {
    /** The dataset's rank-local tables, as the views cross-rank.sql reads. */
    static final Map<String, String> INPUTS = Map.of("files", "rank_files", "collective_instances", "rank_collectives",
            "step_metrics", "rank_step_metrics", "step_categories", "rank_step_categories");

    /** The view of every rank's matched collective instances, which two other views read. */
    private static final String COLLECTIVE_WAITS = "collective_waits";

    /**
     * Rank-local rows the stage reads up to which DuckDB on the driver runs it (the default of
     * {@code --driver-rows}): a few seconds of DuckDB, and a few hundred MB to fetch on a cluster.
     */
    static final long DRIVER_ROWS = 5_000_000;
    /** Rows per shuffle partition of the Spark stage: a partition of collective instances is then ~100 MB. */
    static final long ROWS_PER_SHUFFLE_PARTITION = 1_000_000;

    private CrossRankStage() {}

    /**
     * Runs the stage over {@code rows} rank-local rows (of the tables in {@link #INPUTS}): on the driver up to
     * {@code driverRows} of them, else on Spark in shuffle partitions of {@link #ROWS_PER_SHUFFLE_PARTITION}
     * rows, at most {@link SparkAnalysis#TASKS_PER_CORE} per core (adaptive execution on: Spark merges those
     * it finds small).
     */
    static void run(SparkSession spark, String out, Set<String> captures, java.nio.file.Path scratch, long rows,
                    long driverRows) throws IOException, SQLException, StoreException {
        if (rows <= driverRows) {
            CrossRankOnDriver.run(spark.sparkContext().hadoopConfiguration(), out, captures, scratch);
            return;
        }
        long partitions = Math.min((rows + ROWS_PER_SHUFFLE_PARTITION - 1) / ROWS_PER_SHUFFLE_PARTITION,
                (long) SparkAnalysis.TASKS_PER_CORE * spark.sparkContext().defaultParallelism());
        spark.conf().set("spark.sql.adaptive.enabled", "true");
        spark.conf().set("spark.sql.shuffle.partitions", String.valueOf(Math.max(1, partitions)));
        run(spark, out, captures, scratch);
    }

    /** Runs the stage on Spark, whatever the input's size. */
    static void run(SparkSession spark, String out, Set<String> captures, java.nio.file.Path scratch)
            throws IOException, SQLException, StoreException {
        DatasetViews.register(spark, out, INPUTS, captures, scratch);
        for (ViewScript.View v : ViewScript.CROSS_RANK.views()) {
            spark.sql(v.createStatement());
        }
        // Each input is read by several views, and collective_waits by two more: cached, each is read from the
        // dataset's files (a file per rank) once, not once per view that reads it.
        List<String> cached = new ArrayList<>(INPUTS.values());
        cached.add(COLLECTIVE_WAITS);
        cached.forEach(spark.catalog()::cacheTable);
        try {
            write(spark, out);
        } finally {
            cached.forEach(spark.catalog()::uncacheTable);
        }
    }

    private static void write(SparkSession spark, String out) {
        // An overwrite replaces only the partitions written: the other captures of the dataset stay.
        spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
        for (ViewScript.View v : ViewScript.CROSS_RANK.views()) {
            Dataset<Row> rows = spark.table(v.name());
            boolean perRank = List.of(rows.columns()).contains(ParquetExport.RANK);
            // Each partition directory's rows in one task: one file per directory, not one per shuffle partition.
            (perRank ? rows.repartition(functions.col(ParquetExport.CAPTURE), functions.col(ParquetExport.RANK)).write()
                    .partitionBy(ParquetExport.CAPTURE, ParquetExport.RANK)
                    : rows.repartition(functions.col(ParquetExport.CAPTURE)).write().partitionBy(ParquetExport.CAPTURE))
                    .mode(SaveMode.Overwrite).parquet(new Path(out, v.name()).toString());
        }
    }
}
