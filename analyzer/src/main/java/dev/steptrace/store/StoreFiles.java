package dev.steptrace.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** Reads and writes the bookkeeping rows of the store: captures, files, and files that are no traces. */
public final class StoreFiles {
    /** Every table with a file_id column: what replacing or dropping a file must clear. */
    private static final List<String> FILE_TABLES =
            List.of("gpu_ops", "cpu_ops", "op_shapes", "launches", "comm_meta", "names", "devices", "tracks", "files");

    private StoreFiles() {}

    /**
     * A stored file, as ingest needs it to decide whether to skip, replace or report it.
     *
     * @param pythonFunctions whether its {@code python_function} events were kept (Kineto, {@code
     *                        --keep-python-functions})
     * @param fileStat        the identity on disk of the files its content was read from ({@code files.file_stat}),
     *                        or null
     */
    public record Row(int fileId, Path path, long size, String contentHash, String format, boolean compressed,
                      boolean pythonFunctions, Integer rank, long jsonBytes, Map<String, Long> counts,
                      String fileStat) {}

    public static Row byPath(Connection c, Path path) throws SQLException {
        List<Row> rows = query(c, "path = ?", ps -> ps.setString(1, path.toString()));
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** The stored files whose path lies inside the directory {@code dir} (at any depth). */
    public static List<Row> under(Connection c, Path dir) throws SQLException {
        String prefix = prefix(dir);
        return query(c, "starts_with(path, ?)", ps -> ps.setString(1, prefix));
    }

    /** The stored files directly inside the directory {@code dir}. */
    public static List<Row> in(Connection c, Path dir) throws SQLException {
        String separator = dir.getFileSystem().getSeparator();
        String prefix = prefix(dir);
        return query(c, "starts_with(path, ?) AND NOT contains(substr(path, length(?) + 1), ?)", ps -> {
            ps.setString(1, prefix);
            ps.setString(2, prefix);
            ps.setString(3, separator);
        });
    }

    /** What the paths inside {@code dir} start with: its path and a separator. */
    private static String prefix(Path dir) {
        String separator = dir.getFileSystem().getSeparator();
        return dir.toString().endsWith(separator) ? dir.toString() : dir + separator;
    }

    /** The captures of the stored files directly inside any of {@code dirs}, by id, in order. */
    public static List<Integer> capturesIn(Connection c, Collection<Path> dirs) throws SQLException {
        TreeSet<Integer> ids = new TreeSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT capture_id, path FROM files WHERE capture_id IS NOT NULL");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (dirs.contains(Path.of(rs.getString(2)).getParent())) {
                    ids.add(rs.getInt(1));
                }
            }
        }
        return List.copyOf(ids);
    }

    /** The name of the capture the file at {@code path} belongs to, or null. */
    public static String captureName(Connection c, Path path) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT c.name FROM files f JOIN captures c USING (capture_id) WHERE f.path = ?")) {
            ps.setString(1, path.toString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    public static int maxFileId(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT coalesce(max(file_id), 0) FROM files");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
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

    /** Whether a file at {@code path} of {@code size} bytes was found not to be a trace (whatever its content). */
    public static boolean isNonTrace(Connection c, Path path, long size) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM non_traces WHERE path = ? AND size_bytes = ?")) {
            ps.setString(1, path.toString());
            ps.setLong(2, size);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
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
        deleteWhere(c, FILE_TABLES, "file_id", fileId);
    }

    /** Deletes the rows of {@code tables} whose {@code column} is {@code id}. */
    static void deleteWhere(Connection c, List<String> tables, String column, int id) throws SQLException {
        for (String table : tables) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE " + column + " = ?")) {
                ps.setInt(1, id);
                ps.executeUpdate();
            }
        }
    }

    /** Records that the file {@code fileId}'s stored content is on disk as {@code fileStat} says. */
    public static void setFileStat(Connection c, int fileId, String fileStat) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE files SET file_stat = ? WHERE file_id = ?")) {
            ps.setString(1, fileStat);
            ps.setInt(2, fileId);
            ps.executeUpdate();
        }
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private static List<Row> query(Connection c, String where, Binder binder) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT file_id, path, size_bytes, content_hash, rank,"
                + " json_bytes, n_kernel, n_memcpy, n_memset, n_runtime, n_cpu_op, n_annotation, format, compressed,"
                + " coalesce(python_functions, false), file_stat FROM files WHERE "
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
                            rs.getString(13), rs.getBoolean(14), rs.getBoolean(15), (Integer) rs.getObject(5),
                            rs.getLong(6), counts, rs.getString(16)));
                }
            }
        }
        return rows;
    }
}
