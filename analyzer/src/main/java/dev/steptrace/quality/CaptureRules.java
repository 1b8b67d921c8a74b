package dev.steptrace.quality;

import dev.steptrace.common.StepSource;
import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.roofline.RooflineSummary;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Thresholds;
import dev.steptrace.store.KeptAnalysis;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The capture-quality rules, registered in the order their warnings appear in a report: what in the
 * capture limits what the numbers can say. docs/warnings.md is their catalogue.
 */
public final class CaptureRules {
    private static final List<CaptureRule> RULES = List.of(
            new CaptureRule(PartialFileRule.RULE, PartialFileRule::check),
            new CaptureRule(MissingRanksRule.RULE, MissingRanksRule::check),
            new CaptureRule(DeviceGuessedRule.RULE, DeviceGuessedRule::check),
            new CaptureRule(DeviceUnknownRule.RULE, DeviceUnknownRule::check),
            new CaptureRule(NvtxRangesNotStepsRule.RULE, NvtxRangesNotStepsRule::check),
            new CaptureRule(NoStepsRule.RULE, NoStepsRule::check),
            new CaptureRule(StepCountMismatchRule.RULE, StepCountMismatchRule::check),
            new CaptureRule(UnknownPhaseRule.RULE, UnknownPhaseRule::check),
            new CaptureRule(OpsOutsideStepsRule.RULE, OpsOutsideStepsRule::check),
            new CaptureRule(GraphWithoutKernelsRule.RULE, GraphWithoutKernelsRule::check),
            new CaptureRule(MultiGpuFileRule.RULE, MultiGpuFileRule::check),
            new CaptureRule(UnclassifiedKernelsRule.RULE, UnclassifiedKernelsRule::check),
            new CaptureRule(UntypedGenericCollectivesRule.RULE, UntypedGenericCollectivesRule::check),
            new CaptureRule(MoeNotToldApartRule.RULE, MoeNotToldApartRule::check),
            new CaptureRule(GraphInputCopiesRule.RULE, GraphInputCopiesRule::check),
            new CaptureRule(GraphRecordingRule.RULE, GraphRecordingRule::check),
            new CaptureRule(RecompilesRule.RULE, RecompilesRule::check),
            new CaptureRule(GraphBreaksRule.RULE, GraphBreaksRule::check),
            new CaptureRule(HostSyncsInGraphStepsRule.RULE, HostSyncsInGraphStepsRule::check),
            new CaptureRule(ClockOffsetRule.RULE, ClockOffsetRule::check),
            new CaptureRule(LaunchBoundRule.RULE, LaunchBoundRule::check));

    private CaptureRules() {}

    /**
     * Every rule whose warnings a report can hold: the capture-quality rules above, then the roofline's checks of
     * its inputs ({@link RooflineSummary#RULES}), which run where those inputs are read.
     */
    public static List<Rule> catalogue() {
        return Stream.concat(RULES.stream().map(CaptureRule::rule), RooflineSummary.RULES.stream()).toList();
    }

    /**
     * A kept warning read back: with its rule's severity, summary, the thresholds it was checked with and its
     * evidence over {@code kept} when the catalogue has its code.
     */
    public static Warning warning(String code, String message, Thresholds thresholds, KeptAnalysis kept) {
        return catalogue().stream().filter(r -> r.id().equals(code)).findFirst()
                .map(r -> Warning.of(r, message, thresholds, kept)).orElseGet(() -> new Warning(code, message));
    }

    /**
     * Runs every capture-quality rule over the analysis as the store keeps it: the CLI's once stage 90 has kept
     * it, Spark's as its report step assembles it from the dataset (docs/spark.md), the same rules on the same
     * tables.
     *
     * @param source where the analysis's steps came from
     */
    public static List<Warning> check(KeptAnalysis kept, StepSource source, Thresholds thresholds) throws SQLException {
        CaptureRule.Context ctx = new CaptureRule.Context(kept, source, thresholds);
        List<Warning> out = new ArrayList<>();
        for (CaptureRule rule : RULES) {
            rule.check().run(ctx, out);
        }
        return out;
    }
}
