package dev.steptrace.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code steptrace spark}: the launcher script runs the Spark application (the {@code spark} module's jar, with
 * Spark on its class path) before this jar is started, so this command is only the entry of the command list and
 * of {@code steptrace help spark}; reached through {@code java -jar}, it says where the application is.
 */
@Command(name = "spark", mixinStandardHelpOptions = true,
        description = {"Run the same analysis as one Spark application, locally or on a cluster.",
                "Tasks of one or more trace files run the importers and the rank-local analysis, the cross-rank "
                        + "stage runs in Spark SQL, and all is written as the Parquet dataset of `export` with a "
                        + "report.json per capture. The steptrace launcher runs it in local mode (./steptrace spark "
                        + "TRACES... --out DIR, building spark/target/steptrace-spark.jar on first use; ./steptrace spark "
                        + "--help lists its options); on a cluster, spark-submit the same jar. docs/spark.md."})
public final class SparkCommand implements Callable<Integer> {
    @CommandLine.Unmatched
    List<String> arguments;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("steptrace: spark runs through the steptrace launcher (./steptrace spark"
                + " TRACES... --out DIR) or spark-submit with spark/target/steptrace-spark.jar, not from this jar"
                + " (docs/spark.md)");
        return Main.USAGE;
    }
}
