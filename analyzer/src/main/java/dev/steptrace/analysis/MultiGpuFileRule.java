package dev.steptrace.analysis;

import dev.steptrace.report.BottleneckReport.Warning;
import dev.steptrace.rules.Rule;
import dev.steptrace.rules.Severity;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
            List.of(), """
            SELECT rank, path, anomalies->>'$.cuda_processes' AS cuda_processes, anomalies->>'$.gpu_devices' AS gpu_devices
            FROM files WHERE capture_id = 1
              AND ((anomalies->>'$.cuda_processes') IS NOT NULL OR (anomalies->>'$.gpu_devices') IS NOT NULL)
            """);

    private MultiGpuFileRule() {}

    static void check(CaptureRule.Context ctx, List<Warning> out) throws SQLException {
        try (Statement s = ctx.connection().createStatement(); ResultSet rs = s.executeQuery("""
                SELECT f.rank, f.path, (f.anomalies->>'$.cuda_processes')::BIGINT, (f.anomalies->>'$.gpu_devices')::BIGINT
                FROM files f JOIN capture_files m USING (file_id)
                WHERE m.capture_id = %d
                  AND ((f.anomalies->>'$.cuda_processes') IS NOT NULL OR (f.anomalies->>'$.gpu_devices') IS NOT NULL)
                ORDER BY f.rank, f.path
                """.formatted(ctx.scope().captureId()))) {
            while (rs.next()) {
                String what = rs.getObject(3) != null && rs.getObject(4) != null
                        ? rs.getLong(3) + " processes on " + rs.getLong(4) + " GPUs"
                        : rs.getObject(3) != null ? rs.getLong(3) + " processes" : rs.getLong(4) + " GPUs";
                out.add(new Warning(RULE, "rank " + rs.getObject(1) + ": " + Path.of(rs.getString(2)).getFileName()
                        + " holds the GPU work of " + what + "; a file is read as one rank, so its per-step figures"
                        + " add them up (profile one report per rank, e.g. nsys profile -o rank%q{RANK})"));
            }
        }
    }
}
