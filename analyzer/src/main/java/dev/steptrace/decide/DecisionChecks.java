package dev.steptrace.decide;

import dev.steptrace.rules.Rule;
import java.util.List;

/**
 * The checks of a decision memo, registered in the order the memo lists them; docs/scenarios.md
 * ("Checks") is their catalogue.
 */
public final class DecisionChecks {
    static final List<DecisionCheck> ALL = List.of(
            new DecisionCheck(AmdahlBoundCheck.RULE, AmdahlBoundCheck::check),
            new DecisionCheck(CollectiveRegimeCheck.RULE, CollectiveRegimeCheck::check),
            new DecisionCheck(HardwareMatchCheck.RULE, HardwareMatchCheck::check),
            new DecisionCheck(PremiseCheck.RULE, PremiseCheck::check),
            new DecisionCheck(BatchSizeCheck.RULE, BatchSizeCheck::check),
            new DecisionCheck(StepsCheck.RULE, StepsCheck::check),
            new DecisionCheck(CaptureQualityCheck.RULE, CaptureQualityCheck::check),
            new DecisionCheck(BurstConsistencyCheck.RULE, BurstConsistencyCheck::check),
            new DecisionCheck(ThroughputPlateauCheck.RULE, ThroughputPlateauCheck::check),
            new DecisionCheck(BenchVsCaptureCheck.RULE, BenchVsCaptureCheck::check));

    private DecisionChecks() {}

    /** Every check's catalogue entry, in the memo's order. */
    public static List<Rule> catalogue() {
        return ALL.stream().map(DecisionCheck::rule).toList();
    }
}
