package dev.steptrace.analysis;

import dev.steptrace.store.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The devices the capture's work ran on, as the store keeps them: {@code rank_devices} (stage
 * {@code 02-devices}: per file and device id, the GPU model and how it was found) and the files' device
 * lists ({@code devices}).
 */
final class CaptureDevices {
    private CaptureDevices() {}

    /** The distinct device names of the capture, sorted, from the analysis as the store keeps it ({@code rank_devices}). */
    static List<String> names(StoredAnalysis a) throws SQLException {
        return Sql.strings(a.connection(), "SELECT DISTINCT name FROM rank_devices WHERE " + a.where()
                + " AND name IS NOT NULL ORDER BY 1");
    }

    /**
     * Per file whose GPU work ran on device ids its device list lacks, found {@code how} ({@code only_model},
     * or null for unknown): where, in words, and the guessed name (null when unknown).
     */
    static void unlisted(StoredAnalysis a, String how, BiConsumer<String, String> found) throws SQLException {
        try (PreparedStatement ps = a.prepare("""
                WITH listed AS (
                    SELECT file_id, string_agg(DISTINCT device_id::VARCHAR, ', ' ORDER BY device_id::VARCHAR) AS ids
                    FROM devices WHERE name IS NOT NULL GROUP BY file_id
                )
                SELECT r.rank, string_agg(r.device::VARCHAR, ', ' ORDER BY r.device), any_value(r.name), any_value(l.ids)
                FROM rank_devices r LEFT JOIN listed l USING (file_id)
                WHERE r.capture_id = $1 AND r.analysis_key = $2 AND r.how IS NOT DISTINCT FROM $3
                GROUP BY r.file_id, r.rank ORDER BY r.rank, r.file_id
                """, how)) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.accept("rank " + rs.getObject(1) + ": GPU operations run on device " + rs.getString(2)
                            + ", which the trace's device list does not have ("
                            + (rs.getString(4) == null ? "it lists none" : "it lists id " + rs.getString(4)) + ")",
                            rs.getString(3));
                }
            }
        }
    }
}
