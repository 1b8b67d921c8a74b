package dev.steptrace.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads and writes the bookkeeping rows of the store: captures, files, and files that are no traces. */
public final class StoreFiles {
    /** Every table with a file_id column: what replacing or dropping a file must clear. */
    private static final List<String> FILE_TABLES =
            List.of("gpu_ops", "cpu_ops", "op_shapes", "launches", "comm_meta", "names", "devices", "tracks", "files");

    private StoreFiles() {}

    /** A stored file, as ingest needs it to decide whether to skip, replace or report it. */
    public record Row(int fileId, Path path, long size, String contentHash, Integer rank, long jsonBytes,
                      Map<String, Long> counts) {}

    /** The capture of a directory, or null when the store has none. */
    public static Integer existingCaptureId(Connection c, Path dir) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT capture_id FROM captures WHERE path = ?")) {
            ps.setString(1, dir.toString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : null;
            }
        }
    }

    /** The capture of a directory, created on first use. */
    public static int captureId(Connection c, Path dir) throws SQLException {
        Integer existing = existingCaptureId(c, dir);
        if (existing != null) {
            return existing;
        }
        int id;
        try (PreparedStatement ps = c.prepareStatement("SELECT coalesce(max(capture_id), 0) + 1 FROM captures");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getInt(1);
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO captures VALUES (?, ?, ?, ?)")) {
            ps.setInt(1, id);
            ps.setString(2, dir.toString());
            ps.setString(3, dir.getFileName() == null ? dir.toString() : dir.getFileName().toString());
            ps.setTimestamp(4, Timestamp.from(Instant.now()));
            ps.executeUpdate();
        }
        return id;
    }

    public static Row byPath(Connection c, Path path) throws SQLException {
        List<Row> rows = query(c, "path = ?", ps -> ps.setString(1, path.toString()));
        return rows.isEmpty() ? null : rows.get(0);
    }

    public static List<Row> withoutRank(Connection c, int captureId) throws SQLException {
        return query(c, "capture_id = ? AND rank IS NULL", ps -> ps.setInt(1, captureId));
    }

    public static int maxFileId(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT coalesce(max(file_id), 0) FROM files");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The smallest rank no file of the capture has. */
    public static int lowestFreeRank(Connection c, int captureId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT min(r) FROM range(0, (SELECT count(*) + 1 FROM files WHERE capture_id = ?)) t(r)"
                        + " WHERE r NOT IN (SELECT rank FROM files WHERE capture_id = ? AND rank IS NOT NULL)")) {
            ps.setInt(1, captureId);
            ps.setInt(2, captureId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    public static void setRank(Connection c, int fileId, int rank, String source) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE files SET rank = ?, rank_source = ? WHERE file_id = ?")) {
            ps.setInt(1, rank);
            ps.setString(2, source);
            ps.setInt(3, fileId);
            ps.executeUpdate();
        }
    }

    /** Why the file at {@code path} with this size and content hash was found not to be a trace, or null. */
    public static String nonTraceReason(Connection c, Path path, long size, String contentHash) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT reason FROM non_traces WHERE path = ? AND size_bytes = ? AND content_hash = ?")) {
            ps.setString(1, path.toString());
            ps.setLong(2, size);
            ps.setString(3, contentHash);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** Remembers that the file at {@code path}, as fingerprinted, is not a trace. */
    public static void putNonTrace(Connection c, Path path, long size, String contentHash, String reason)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT OR REPLACE INTO non_traces VALUES (?, ?, ?, ?)")) {
            ps.setString(1, path.toString());
            ps.setLong(2, size);
            ps.setString(3, contentHash);
            ps.setString(4, reason);
            ps.executeUpdate();
        }
    }

    /** Forgets a non-trace verdict on {@code path} (its file is a trace now). */
    public static void deleteNonTrace(Connection c, Path path) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM non_traces WHERE path = ?")) {
            ps.setString(1, path.toString());
            ps.executeUpdate();
        }
    }

    /** Removes every row of a file (inside the caller's transaction when one is open). */
    public static void deleteFile(Connection c, int fileId) throws SQLException {
        for (String table : FILE_TABLES) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE file_id = ?")) {
                ps.setInt(1, fileId);
                ps.executeUpdate();
            }
        }
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private static List<Row> query(Connection c, String where, Binder binder) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT file_id, path, size_bytes, content_hash, rank,"
                + " json_bytes, n_kernel, n_memcpy, n_memset, n_runtime, n_cpu_op, n_annotation FROM files WHERE "
                + where + " ORDER BY path")) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Map<String, Long> counts = new LinkedHashMap<>();
                    counts.put("kernel", rs.getLong(7));
                    counts.put("memcpy", rs.getLong(8));
                    counts.put("memset", rs.getLong(9));
                    counts.put("runtime", rs.getLong(10));
                    counts.put("cpu_op", rs.getLong(11));
                    counts.put("annotation", rs.getLong(12));
                    rows.add(new Row(rs.getInt(1), Path.of(rs.getString(2)), rs.getLong(3), rs.getString(4),
                            (Integer) rs.getObject(5), rs.getLong(6), counts));
                }
            }
        }
        return rows;
    }
}
