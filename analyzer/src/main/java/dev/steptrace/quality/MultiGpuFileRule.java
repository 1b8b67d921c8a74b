package dev.steptrace.quality;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

/**
 * A file holding the GPU work of several processes or devices (an Nsight Systems report of a whole
 * tensor-parallel server): one file is one rank, so its figures add the GPUs up.
 */
final class MultiGpuFileRule {
    static final Rule RULE = new Rule("multi_gpu_file", Severity.SEVERE,
            "One file holds the GPU work of several processes or GPUs.",
            "A file is read as one rank. An Nsight Systems report of a whole tensor-parallel server holds every"
                    + " GPU's kernels, so its per-step figures add the GPUs up and no cross-rank figure can be made."
                    + " Profile one report per rank (e.g. nsys profile -o rank%q{RANK}).",
            List.of(), "capture-files");

    private MultiGpuFileRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        ctx.evidence(RULE, rs -> {
            Object processes = rs.getObject(7);
            Object gpus = rs.getObject(8);
            if (processes == null && gpus == null) {
                return;
            }
            String what = processes != null && gpus != null ? rs.getLong(7) + " processes on " + rs.getLong(8) + " GPUs"
                    : processes != null ? rs.getLong(7) + " processes" : rs.getLong(8) + " GPUs";
            out.add(ctx.warning(RULE, "rank " + rs.getObject(2) + ": " + Path.of(rs.getString(3)).getFileName()
                    + " holds the GPU work of " + what + "; a file is read as one rank, so its per-step figures"
                    + " add them up (profile one report per rank, e.g. nsys profile -o rank%q{RANK})"));
        });
    }
}
