package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.List;

/** The scenario's GPU model, count and interconnect against the capture's ({@link DecisionEngine#fit}). */
final class HardwareMatchCheck {
    static final Rule RULE = new Rule("hardware-match", Severity.SEVERE, "Scenario hardware matches the capture",
            "A memo weighs options with the capture's numbers, so the capture must be of the hardware the scenario is"
                    + " about: hardware.gpu against the device names, hardware.gpus against the world size,"
                    + " hardware.interconnect against the interconnect the device names imply. A mismatch makes the"
                    + " memo not applicable (also a hardware_mismatch warning), unless hardware.capture_stands_in says"
                    + " the capture stands in for the scenario's hardware.",
            List.of(), null);

    private HardwareMatchCheck() {}

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        Scenario.Hardware h = ctx.memo().scenario().hardware();
        DecisionEngine.Fit fit = ctx.fit();
        if (fit.mismatches().isEmpty()) {
            out.add(new Decision.Check(RULE.id(), RULE.summary(), "ok", null, null,
                    h.gpu() == null && h.gpus() == null && h.interconnect() == null
                            ? "The scenario states no GPU model, count or interconnect to compare."
                            : "The capture's devices, count and interconnect match the scenario's hardware facts.",
                    fit.evidence()));
        } else if (h.captureStandsIn()) {
            out.add(new Decision.Check(RULE.id(), RULE.summary(), "info", null, null,
                    "The capture stands in for the scenario's hardware (hardware.capture_stands_in): "
                            + String.join("; ", fit.mismatches()) + ". The memo decides with the capture's numbers.",
                    fit.evidence()));
        } else {
            String msg = "Not applicable: the scenario's hardware is not the capture's: " + String.join("; ", fit.mismatches())
                    + ". Nothing is decided; capture the scenario's hardware, or set hardware.capture_stands_in: true if"
                    + " this capture stands in for it.";
            out.add(new Decision.Check(RULE.id(), RULE.summary(), "warn", null, null, msg, fit.evidence()));
            warnings.add(new BottleneckReport.Warning("hardware_mismatch", msg));
        }
    }
}
