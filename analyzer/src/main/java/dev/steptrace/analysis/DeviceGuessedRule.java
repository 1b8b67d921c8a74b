package dev.steptrace.analysis;

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
            List.of(), """
            SELECT rank, device, name, how FROM rank_devices
            WHERE capture_id = 1 AND analysis_key = 'default' AND how = 'only_model' ORDER BY rank, device
            """);

    private DeviceGuessedRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        CaptureDevices.unlisted(ctx.analysis(), "only_model", (where, name) ->
                out.add(new Warning(RULE, where + "; taken to be " + name
                        + ", the only model it lists (ROCm traces number devices differently from deviceProperties)")));
    }
}
