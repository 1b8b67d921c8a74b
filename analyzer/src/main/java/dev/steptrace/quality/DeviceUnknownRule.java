package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.sql.SQLException;
import java.util.List;

/** GPU work on a device id the trace's device list lacks, with no single model to guess. */
final class DeviceUnknownRule {
    static final Rule RULE = new Rule("device_unknown", Severity.WARNING,
            "A rank's GPU model is unknown.",
            "The rank's GPU operations carry a device id its trace's device list does not have, and the list names"
                    + " several models or none: the report cannot name the GPU, so there are no roofline bounds and a"
                    + " decision memo cannot compare the hardware with its scenario's.",
            List.of(), "unlisted-devices");

    private DeviceUnknownRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        ctx.evidence(RULE, rs -> {
            if (rs.getString(5) == null) {
                out.add(ctx.warning(RULE, UnlistedDevice.where(rs) + "; the device model is unknown"));
            }
        });
    }
}
