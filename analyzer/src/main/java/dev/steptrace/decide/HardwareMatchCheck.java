package dev.steptrace.decide;

import dev.steptrace.report.BottleneckReport;
import dev.steptrace.report.Fmt;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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

    /** Whether a device name from the trace is the scenario's GPU ("RTX PRO 6000 Blackwell" in "NVIDIA RTX PRO 6000 Blackwell Server Edition"). */
    static boolean sameGpu(String device, String gpu) {
        String d = normalize(device);
        String g = normalize(gpu);
        // Whole words only: "H20" is not "H200".
        return !g.isEmpty() && !d.isEmpty() && ((" " + d + " ").contains(" " + g + " ") || (" " + g + " ").contains(" " + d + " "));
    }

    private static String normalize(String s) {
        return (" " + s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", " ") + " ")
                .replace(" nvidia ", " ").replace(" geforce ", " ").strip().replaceAll("\\s+", " ");
    }

    /**
     * Whether the scenario's hardware is the capture's: GPU model (device names), GPU count (world size),
     * interconnect ({@link CaptureInterconnect}; an unknown one is never a mismatch).
     */
    record Fit(List<String> mismatches, String evidence, boolean applies) {}

    static Fit fit(BottleneckReport report, Scenario s) {
        BottleneckReport.Capture cap = report.capture();
        Scenario.Hardware h = s.hardware();
        List<String> mismatch = new ArrayList<>();
        if (h.gpu() != null) {
            if (cap.devices() == null || cap.devices().isEmpty()) {
                mismatch.add("the capture names no devices to compare with hardware.gpu \"" + h.gpu() + "\"");
            } else if (cap.devices().stream().noneMatch(dev -> sameGpu(dev, h.gpu()))) {
                mismatch.add("hardware.gpu is \"" + h.gpu() + "\" but the capture ran on " + String.join(", ", cap.devices()));
            }
        }
        int world = cap.worldSize() != null ? cap.worldSize() : cap.ranks().size();
        if (h.gpus() != null && h.gpus() != world) {
            mismatch.add("hardware.gpus is " + h.gpus() + " but the capture has world size " + world);
        }
        CaptureInterconnect link = CaptureInterconnect.of(cap.devices(), world);
        if (h.interconnect() != null && link.interconnect() != null && !h.interconnect().equals(link.interconnect())) {
            mismatch.add("hardware.interconnect is " + h.interconnect() + " but the capture's GPUs are linked by "
                    + link.interconnect());
        }
        String evidence = "scenario: gpu " + Fmt.text(h.gpu()) + ", gpus " + (h.gpus() == null ? "n/a" : h.gpus())
                + ", interconnect " + Fmt.text(h.interconnect()) + (h.captureStandsIn() ? ", capture_stands_in" : "")
                + "; capture " + cap.name() + ": devices "
                + (cap.devices() == null || cap.devices().isEmpty() ? "n/a" : String.join(", ", cap.devices()))
                + ", world size " + world + ", interconnect " + (link.interconnect() == null ? "unknown" : link.interconnect())
                + " (" + link.evidence() + ")";
        return new Fit(List.copyOf(mismatch), evidence, mismatch.isEmpty() || h.captureStandsIn());
    }

    static void check(DecisionCheck.Context ctx, List<Decision.Check> out, List<BottleneckReport.Warning> warnings) {
        Scenario.Hardware h = ctx.memo().scenario().hardware();
        Fit fit = ctx.fit();
        if (fit.mismatches().isEmpty()) {
            out.add(new Decision.Check(RULE, Decision.Status.OK, null, null,
                    h.gpu() == null && h.gpus() == null && h.interconnect() == null
                            ? "The scenario states no GPU model, count or interconnect to compare."
                            : "The capture's devices, count and interconnect match the scenario's hardware facts.",
                    fit.evidence()));
        } else if (h.captureStandsIn()) {
            out.add(new Decision.Check(RULE, Decision.Status.INFO, null, null,
                    "The capture stands in for the scenario's hardware (hardware.capture_stands_in): "
                            + String.join("; ", fit.mismatches()) + ". The memo decides with the capture's numbers.",
                    fit.evidence()));
        } else {
            String msg = "Not applicable: the scenario's hardware is not the capture's: " + String.join("; ", fit.mismatches())
                    + ". Nothing is decided; capture the scenario's hardware, or set hardware.capture_stands_in: true if"
                    + " this capture stands in for it.";
            out.add(new Decision.Check(RULE, DecisionCheck.Context.status(RULE, false), null, null, msg, fit.evidence()));
            warnings.add(new BottleneckReport.Warning("hardware_mismatch", msg));
        }
    }
}
