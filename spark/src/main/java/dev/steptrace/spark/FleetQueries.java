package dev.steptrace.spark;

import dev.steptrace.store.StoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.SQLException;
import dev.steptrace.analysis.ViewScript;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/** The fleet queries of {@code fleet.sql} (docs/spark.md), as views over a dataset of many captures. */
public final class FleetQueries {
    static final ViewScript VIEWS = ViewScript.resource(FleetQueries.class, "fleet.sql");
    /** The dataset's tables the views read, under their own names. */
    static final Map<String, String> INPUTS = Map.of("files", "files", "phase_categories", "phase_categories",
            "collective_arrivals", "collective_arrivals");

    private FleetQueries() {}

    /** Registers the dataset's tables and the fleet views ({@code category_trend}, {@code worst_straggler}). */
    public static void register(SparkSession spark, String dataset) throws IOException, SQLException, StoreException {
        java.nio.file.Path scratch = Files.createTempDirectory("steptrace-fleet");
        try {
            DatasetViews.register(spark, dataset, INPUTS, null, scratch);
        } finally {
            dev.steptrace.common.OutputFiles.deleteTree(scratch);
        }
        for (ViewScript.View v : VIEWS.views()) {
            spark.sql(v.createStatement());
        }
    }
}
