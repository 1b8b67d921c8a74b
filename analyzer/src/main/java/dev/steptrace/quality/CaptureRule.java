package dev.steptrace.quality;

import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.KeptAnalysis;
import dev.steptrace.store.Sql;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * One capture-quality check as registered in {@link CaptureRules}: its catalogue entry (docs/warnings.md) and how
 * it runs over the kept analysis. Each rule is a class holding both ({@code RULE} and {@code check}); a new check is
 * such a class plus a line in {@link CaptureRules}.
 */
record CaptureRule(Rule rule, Check check) {
    /** Adds a warning per finding ({@code ctx.warning(RULE, message)}). */
    @FunctionalInterface
    interface Check {
        void run(Context ctx, List<Warning> out) throws SQLException;
    }

    /**
     * What a check reads: the analysis as the store keeps it (the same on one machine and as Spark assembles it,
     * docs/spark.md), through its rule's evidence query, and the thresholds.
     *
     * @param source where the steps came from
     */
    record Context(KeptAnalysis kept, StepSource source, Thresholds thresholds) {
        /** The rows of {@code rule}'s evidence query ({@link Rule#evidence}) over this analysis: what the check decides on. */
        void evidence(Rule rule, Sql.Rows rows) throws SQLException {
            kept.query(rule.evidence(), Map.of(), rows);
        }

        /** {@code rule}'s value of threshold {@code name}: its default, or {@code --warn-threshold}'s. */
        double threshold(Rule rule, String name) {
            return thresholds.get(rule, name);
        }

        /** A finding of {@code rule}, with the thresholds it was checked with and its evidence query. */
        Warning warning(Rule rule, String message) {
            return Warning.of(rule, message, thresholds, kept);
        }
    }
}
