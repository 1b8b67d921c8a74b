package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/** GPU work on a device id the trace's device list lacks, taken to be the only model the list names. */
final class DeviceGuessedRule {
    static final Rule RULE = new Rule("device_guessed", Severity.INFO,
            "A rank's GPU model is inferred: its device id is not in the trace's device list.",
            "ROCm traces number the devices kernels ran on (e.g. 9) differently from torch's deviceProperties"
                    + " (0 for the first visible GPU). When every listed device is the same model, the work is taken"
                    + " to have run on that model; the roofline and the device facts rest on that guess.",
            List.of(), "unlisted-devices");

    private DeviceGuessedRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        ctx.evidence(RULE, rs -> {
            if ("only_model".equals(rs.getString(5))) {
                out.add(ctx.warning(RULE, UnlistedDevice.where(rs) + "; taken to be " + rs.getString(4)
                        + ", the only model it lists (ROCm traces number devices differently from deviceProperties)"));
            }
        });
    }
}
