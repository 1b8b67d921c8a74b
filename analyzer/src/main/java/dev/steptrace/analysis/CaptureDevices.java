package dev.steptrace.analysis;

import dev.steptrace.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The devices the capture's work ran on, as the device rules read them: {@code t_devices} (stage
 * {@code 02-devices}: per file and device id, the GPU model and how it was found) and the store's
 * {@code rank_devices}.
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
    static void unlisted(Connection c, String how, BiConsumer<String, String> found) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT rank, string_agg(device::VARCHAR, ', ' ORDER BY device), any_value(name), any_value(listed)
                FROM t_devices WHERE how IS NOT DISTINCT FROM ?
                GROUP BY file_id, rank ORDER BY rank, file_id
                """)) {
            ps.setString(1, how);
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
