package dev.steptrace.analysis;

import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Thresholds;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * One capture-quality check as registered in {@link CaptureRules}: its catalogue entry (docs/warnings.md)
 * and how it runs over the analysis tables. Each rule is a class holding both ({@code RULE} and
 * {@code check}); a new check is such a class plus a line in {@link CaptureRules}.
 */
record CaptureRule(Rule rule, Check check) {
    /** Adds a warning per finding ({@code new Warning(RULE, message)}). */
    @FunctionalInterface
    interface Check {
        void run(Context ctx, List<Warning> out) throws SQLException;
    }

    /**
     * What a check reads: the analysis as the store keeps it (its tables, files, step source: the same on one
     * machine and as Spark assembles it, docs/spark.md) and the thresholds.
     */
    record Context(StoredAnalysis analysis, Thresholds thresholds) {
        Connection connection() {
            return analysis.connection();
        }

        CaptureScope scope() {
            return analysis.scope();
        }

        StepSource source() {
            return analysis.stepSource();
        }

        /** The condition on the kept tables that selects this analysis's rows. */
        String where() {
            return analysis.where();
        }
    }
}
