package dev.steptrace.analysis;

import dev.steptrace.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Which GPU model each file's GPU work ran on, into temp table {@code t_devices(file_id, rank, device, name,
 * how, listed)} (kept as the store's {@code rank_devices}): one row per (file, device id) its GPU operations carry. The name comes from the file's
 * {@code devices} rows (Kineto {@code deviceProperties}, nsys {@code TARGET_INFO_GPU}):
 * <ul>
 *   <li>{@code how = 'listed'}: a row with the same device id;</li>
 *   <li>{@code how = 'only_model'}: no row has that id, but every row names the same model, so the work ran
 *       on that model (a guess, reported as a warning: {@link DeviceGuessedRule}). ROCm traces number the devices the kernels ran on
 *       (e.g. 9) differently from torch's {@code deviceProperties} (0 for the first visible GPU);</li>
 *   <li>{@code how = NULL}, name NULL: no row has that id and the rows name several models (or none).</li>
 * </ul>
 * {@code listed} holds the ids the file's rows list, for messages.
 */
final class CaptureDevices {
    private CaptureDevices() {}

    static void build(Connection c) throws SQLException {
        Sql.exec(c, """
                CREATE OR REPLACE TEMP TABLE t_devices AS
                WITH used AS (
                    SELECT DISTINCT g.file_id, g.device FROM gpu_ops g JOIN t_files USING (file_id)
                    WHERE g.device IS NOT NULL AND g.kind <> 'sync'
                ), listed AS (
                    SELECT file_id, count(DISTINCT name) AS models, min(name) AS name,
                           string_agg(DISTINCT device_id::VARCHAR, ', ' ORDER BY device_id::VARCHAR) AS ids
                    FROM devices JOIN t_files USING (file_id) WHERE name IS NOT NULL GROUP BY file_id
                )
                SELECT u.file_id, f.rank, u.device,
                       coalesce(d.name, CASE WHEN l.models = 1 THEN l.name END) AS name,
                       CASE WHEN d.name IS NOT NULL THEN 'listed' WHEN l.models = 1 THEN 'only_model' END AS how,
                       l.ids AS listed
                FROM used u JOIN t_files f USING (file_id)
                LEFT JOIN devices d ON d.file_id = u.file_id AND d.device_id = u.device
                LEFT JOIN listed l ON l.file_id = u.file_id
                """);
    }

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
