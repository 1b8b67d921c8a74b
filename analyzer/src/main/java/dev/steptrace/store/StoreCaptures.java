package dev.steptrace.store;

import dev.steptrace.common.Digests;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and writes the {@code captures} rows (docs/schema.md, "Captures"): the runs found in a directory,
 * and captures of one file taken alone. Dropping a capture drops its analysis.
 */
public final class StoreCaptures {
    /** The tables an analysis writes, each keyed by (capture_id, analysis_key) (docs/schema.md, "The analysis"). */
    public static final List<String> ANALYSIS_TABLES = List.of("analyses", "steps", "step_metrics", "step_times",
            "step_time_base", "critical_path_base", "host_syncs", "idle_cpu_ops", "step_categories",
            "step_kernels", "kernel_classes", "context_ops", "kernel_contexts", "step_compile_events", "collective_instances", "collective_arrivals", "rank_devices",
            "launch_delays", "replay_latencies", "graph_replays", "kernel_work", "op_shape_calls", "file_checks", "analysis_warnings");

    private StoreCaptures() {}

    /** The run captures of a directory: id to name. */
    public static Map<Integer, String> runsIn(Connection c, Path dir) throws SQLException {
        Map<Integer, String> runs = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT capture_id, name FROM captures WHERE path = ? AND single_file_id IS NULL ORDER BY capture_id")) {
            ps.setString(1, dir.toString());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    runs.put(rs.getInt(1), rs.getString(2));
                }
            }
        }
        return runs;
    }

    /** The names of every capture except the runs of {@code dir}. */
    public static Set<String> namesBesides(Connection c, Path dir) throws SQLException {
        Set<String> names = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT name FROM captures WHERE NOT (path = ? AND single_file_id IS NULL)")) {
            ps.setString(1, dir.toString());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    /** Adds a capture; returns its id. {@code singleFileId} is null for a run. */
    public static int insert(Connection c, Path dir, String name, Integer singleFileId) throws SQLException {
        int id;
        try (PreparedStatement ps = c.prepareStatement("SELECT coalesce(max(capture_id), 0) + 1 FROM captures");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getInt(1);
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO captures VALUES (?, ?, ?, ?, ?)")) {
            ps.setInt(1, id);
            ps.setString(2, dir.toString());
            ps.setString(3, name);
            ps.setObject(4, singleFileId);
            ps.setTimestamp(5, Timestamp.from(Instant.now()));
            ps.executeUpdate();
        }
        return id;
    }

    public static void rename(Connection c, int captureId, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE captures SET name = ? WHERE capture_id = ? AND name <> ?")) {
            ps.setString(1, name);
            ps.setInt(2, captureId);
            ps.setString(3, name);
            ps.executeUpdate();
        }
    }

    /** Puts files into a run capture. */
    public static void assign(Connection c, List<Integer> fileIds, int captureId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE files SET capture_id = ? WHERE file_id = ? AND capture_id IS DISTINCT FROM ?")) {
            for (int fileId : fileIds) {
                ps.setInt(1, captureId);
                ps.setInt(2, fileId);
                ps.setInt(3, captureId);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Removes a capture and its analysis (inside the caller's transaction when one is open). */
    public static void delete(Connection c, int captureId) throws SQLException {
        deleteAnalyses(c, captureId);
        StoreFiles.deleteWhere(c, List.of("captures"), "capture_id", captureId);
    }

    /** Removes every analysis of a capture. */
    public static void deleteAnalyses(Connection c, int captureId) throws SQLException {
        StoreFiles.deleteWhere(c, ANALYSIS_TABLES, "capture_id", captureId);
    }

    /**
     * Captures of one file taken alone that no longer stand for anything: their file is gone, or it is now
     * the only file of its run (which is then the same capture).
     */
    public static List<Integer> staleSingleFileCaptures(Connection c) throws SQLException {
        List<Integer> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT c.capture_id FROM captures c LEFT JOIN files f ON f.file_id = c.single_file_id
                WHERE c.single_file_id IS NOT NULL
                  AND (f.file_id IS NULL OR (SELECT count(*) FROM files o WHERE o.capture_id = f.capture_id) <= 1)
                """); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
        }
        return ids;
    }

    /** The capture that takes this file alone, or null when there is none. */
    public static Integer singleFileCapture(Connection c, int fileId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT capture_id FROM captures WHERE single_file_id = ?")) {
            ps.setInt(1, fileId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : null;
            }
        }
    }

    /**
     * A digest of the capture's files rows (path, size, content hash, status, rank, world size, ingest
     * time): an analysis made from other files, or from these before one was re-ingested, has another.
     */
    public static String filesKey(Connection c, int captureId) throws SQLException {
        StringBuilder rows = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT f.file_id, f.path, f.size_bytes, f.content_hash, f.status, f.rank, f.world_size, f.ingested_at
                FROM capture_files m JOIN files f USING (file_id) WHERE m.capture_id = ? ORDER BY f.file_id
                """)) {
            ps.setInt(1, captureId);
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= columns; i++) {
                        rows.append(rs.getString(i)).append('\u0000');
                    }
                    rows.append('\n');
                }
            }
        }
        return Digests.sha256(rows.toString());
    }

    /** Drops the capture's analyses made from other files than it has now (its files changed). */
    public static void dropStaleAnalyses(Connection c, int captureId) throws SQLException {
        List<String> stale = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT analysis_key FROM analyses WHERE capture_id = ? AND files_key <> ?")) {
            ps.setInt(1, captureId);
            ps.setString(2, filesKey(c, captureId));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stale.add(rs.getString(1));
                }
            }
        }
        for (String key : stale) {
            deleteAnalysis(c, captureId, key);
        }
    }

    /**
     * For an analysis of a store that cannot be written: the analysis tables as empty temp tables of the same names on
     * this connection, which hide the store's own there, so that the analysis is kept in them and read as the store
     * would be.
     */
    public static void shadowAnalysisTables(Connection c) throws SQLException {
        for (String table : ANALYSIS_TABLES) {
            Sql.exec(c, "CREATE OR REPLACE TEMP TABLE " + table + " AS SELECT * FROM " + table + " LIMIT 0");
        }
    }

    /** Keeps the warnings of the capture's analysis under {@code key}, each (code, message), in their order. */
    public static void keepWarnings(Connection c, int captureId, String key, List<List<String>> warnings)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO analysis_warnings VALUES (?, ?, ?, ?, ?)")) {
            for (int i = 0; i < warnings.size(); i++) {
                ps.setInt(1, captureId);
                ps.setString(2, key);
                ps.setInt(3, i);
                ps.setString(4, warnings.get(i).get(0));
                ps.setString(5, warnings.get(i).get(1));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Removes the capture's analysis under {@code key} from every analysis table. */
    public static void deleteAnalysis(Connection c, int captureId, String key) throws SQLException {
        for (String table : ANALYSIS_TABLES) {
            try (PreparedStatement ps = c.prepareStatement(
                    "DELETE FROM " + table + " WHERE capture_id = ? AND analysis_key = ?")) {
                ps.setInt(1, captureId);
                ps.setString(2, key);
                ps.executeUpdate();
            }
        }
    }

    /** Every capture name in the store. */
    public static Set<String> names(Connection c) throws SQLException {
        Set<String> names = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name FROM captures"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }
}
