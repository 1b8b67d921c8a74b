package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Thresholds;
import java.util.List;

/**
 * One check of a decision memo as registered in {@link DecisionChecks}: its catalogue entry
 * (docs/scenarios.md, "Checks") and how it runs over the memo's numbers. Each check is a class holding
 * both ({@code RULE} and {@code check}); a new check is such a class plus a line in {@link DecisionChecks}.
 */
record DecisionCheck(Rule rule, Check check) {
    /** Adds the check's results to {@code out} (none when it does not apply), and a warning where the memo needs one. */
    @FunctionalInterface
    interface Check {
        void run(Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings);
    }

    /**
     * What a check reads: the memo's capture and scenario ({@code memo}), what the memo found, and the checks'
     * thresholds.
     *
     * @param tax        the question's tax in the question's phase
     * @param share      its share of kernel time, percent
     * @param amdahl     the step's speedup with the tax at zero, or null
     * @param regime     latency or bandwidth of the tax's collective ({@link CollectiveRegimeCheck#regime})
     * @param period     the step period (GPU span plus host gap), ms, or null
     * @param bench      the {@code --bench} results, or null
     * @param fit        whether the scenario's hardware is the capture's ({@link HardwareMatchCheck#fit})
     * @param thresholds the checks' thresholds: their defaults, or {@code --warn-threshold}'s
     */
    record Context(DecisionEngine memo, DecisionEngine.Part tax, double share, Double amdahl,
                   CollectiveRegimeCheck.Regime regime, Double period, Decision.Bench bench, HardwareMatchCheck.Fit fit,
                   Thresholds thresholds) {
        /** {@code rule}'s value of threshold {@code name}. */
        double threshold(Rule rule, String name) {
            return thresholds.get(rule, name);
        }

        /** The status of a result of {@code rule}: {@link Decision.Status#OK} when it passed, else its severity. */
        static Decision.Status status(Rule rule, boolean passed) {
            return passed ? Decision.Status.OK : Decision.Status.of(rule.severity());
        }
    }
}
