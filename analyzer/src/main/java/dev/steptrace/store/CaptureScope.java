package dev.steptrace.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** One capture of the store: its directory, and its files ({@code capture_files}) with their ranks. */
public record CaptureScope(int captureId, Path path, String name, List<FileInfo> files) {

    /** A file of the capture as the analyses need it. */
    public record FileInfo(int fileId, Path path, Integer rank, String status, String partialReason,
                           Integer worldSize, String format) {}

    public static CaptureScope load(Connection c, int captureId) throws SQLException {
        Path path;
        String name;
        try (PreparedStatement ps = c.prepareStatement("SELECT path, name FROM captures WHERE capture_id = ?")) {
            ps.setInt(1, captureId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no capture " + captureId + " in the store");
                }
                path = Path.of(rs.getString(1));
                name = rs.getString(2);
            }
        }
        List<FileInfo> files = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT f.file_id, f.path, f.rank, f.status, f.partial_reason,"
                + " f.world_size, f.format FROM capture_files m JOIN files f USING (file_id) WHERE m.capture_id = ?"
                + " ORDER BY f.rank, f.path")) {
            ps.setInt(1, captureId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    files.add(new FileInfo(rs.getInt(1), Path.of(rs.getString(2)), (Integer) rs.getObject(3),
                            rs.getString(4), rs.getString(5), (Integer) rs.getObject(6), rs.getString(7)));
                }
            }
        }
        return new CaptureScope(captureId, path, name, files);
    }

    /** The runs (not files taken alone) whose directory is {@code dir} or lies under it. */
    public static List<Integer> under(Connection c, Path dir) throws SQLException {
        String p = dir.toAbsolutePath().normalize().toString();
        List<Integer> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT capture_id FROM captures"
                + " WHERE (path = ? OR starts_with(path, ?)) AND single_file_id IS NULL"
                + " AND capture_id IN (SELECT capture_id FROM files)"
                + " ORDER BY path, name")) {
            ps.setString(1, p);
            ps.setString(2, p.endsWith("/") ? p : p + "/");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
            }
        }
        return ids;
    }

    public List<Integer> ranks() {
        return files.stream().map(FileInfo::rank).filter(r -> r != null).distinct().sorted().toList();
    }
}
