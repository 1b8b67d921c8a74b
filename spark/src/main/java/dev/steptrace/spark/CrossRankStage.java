package dev.steptrace.spark;

import dev.steptrace.store.ParquetExport;
import dev.steptrace.store.StoreException;
import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * The cross-rank stage: the views of {@code cross-rank.sql} over the rank-local tables the tasks wrote,
 * run by Spark SQL, and written back into the dataset ({@code collective_waits} by capture and rank, the
 * others by capture), replacing only the partitions of this run's captures.
 */
final class CrossRankStage {
    /** The rank-local tables the views read. */
    static final List<String> INPUTS = List.of("files", "step_metrics", "step_categories", "collective_instances");
    static final ViewScript VIEWS = ViewScript.resource("cross-rank.sql");

    private CrossRankStage() {}

    static void run(SparkSession spark, String out, Set<String> captures, java.nio.file.Path scratch)
            throws IOException, SQLException, StoreException {
        DatasetViews.register(spark, out, INPUTS, captures, scratch);
        for (ViewScript.View v : VIEWS.views()) {
            spark.sql(v.createStatement());
        }
        // An overwrite replaces only the partitions written: the other captures of the dataset stay.
        spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
        for (ViewScript.View v : VIEWS.views()) {
            Dataset<Row> rows = spark.table(v.name());
            boolean perRank = List.of(rows.columns()).contains(ParquetExport.RANK);
            (perRank ? rows.write().partitionBy(ParquetExport.CAPTURE, ParquetExport.RANK)
                    : rows.write().partitionBy(ParquetExport.CAPTURE))
                    .mode(SaveMode.Overwrite).parquet(new Path(out, v.name()).toString());
        }
    }
}
