package dev.steptrace.ingest;

import dev.steptrace.store.StoreCaptures;
import dev.steptrace.store.StoreException;
import dev.steptrace.store.StoreFiles;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * After files are loaded, puts the stored files of each directory that changed into captures by
 * {@link CaptureGrouping}'s rule, names them ({@link CaptureNames}) and gives ranks to files whose trace
 * and name state none. One transaction per directory. A capture keeps its id while most of its files
 * stay together (so its analysis and name survive an unrelated file added beside it); a capture whose
 * files changed loses its analysis, which the next report makes again.
 */
public final class CaptureAssignment {
    private CaptureAssignment() {}

    /**
     * The capture of the stored file at {@code file} taken alone ({@code report FILE}): its run when the
     * run has no other file, else a capture of that one file (created on first use when {@code create},
     * named by {@link CaptureNames#forFile}). Null when the store does not hold the file.
     *
     * @throws StoreException when the capture would have to be created and {@code create} is false
     */
    public static Integer aloneCapture(Connection c, Path file, boolean create) throws SQLException, StoreException {
        Integer fileId = null;
        Integer run = null;
        long runFiles = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT file_id, capture_id,"
                + " (SELECT count(*) FROM files o WHERE o.capture_id = f.capture_id) FROM files f WHERE path = ?")) {
            ps.setString(1, file.toString());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    fileId = rs.getInt(1);
                    run = (Integer) rs.getObject(2);
                    runFiles = rs.getLong(3);
                }
            }
        }
        if (fileId == null || run == null) {
            return null;
        }
        if (runFiles <= 1) {
            return run;
        }
        Integer alone = StoreCaptures.singleFileCapture(c, fileId);
        if (alone != null) {
            return alone;
        }
        if (!create) {
            throw new StoreException("the store cannot be written (read-only) and holds no capture of "
                    + file.getFileName() + " alone (it is one rank of a capture of several): report the"
                    + " capture's directory, or use a store that can be written", null);
        }
        Set<String> taken = StoreCaptures.names(c);
        return StoreCaptures.insert(c, file.getParent(), CaptureNames.forFile(file, taken::contains), fileId);
    }

    /** A stored file of the directory: what the rule sees, and what it is stored with now. */
    private record Stored(CaptureGrouping.Member member, Integer captureId, Integer rank, String rankSource) {}

    /**
     * Regroups each directory of {@code dirs}, in path order; adds a line to {@code warnings} for each
     * ambiguous set of files and each rank assumed from file order; returns the ranks assumed, by path.
     */
    static Map<Path, Integer> regroup(Connection c, Set<Path> dirs, List<String> warnings) throws SQLException {
        Map<Path, Integer> assumed = new HashMap<>();
        for (Path dir : new TreeSet<>(dirs)) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                regroup(c, dir, warnings, assumed);
                for (int id : StoreCaptures.staleSingleFileCaptures(c)) {
                    StoreCaptures.delete(c, id);
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
        return assumed;
    }

    /** Directories holding a stored file that no capture has yet (left by an ingest that stopped before grouping). */
    static Set<Path> ungrouped(Connection c) throws SQLException {
        Set<Path> dirs = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT path FROM files WHERE capture_id IS NULL");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                dirs.add(Path.of(rs.getString(1)).getParent());
            }
        }
        return dirs;
    }

    private static void regroup(Connection c, Path dir, List<String> warnings, Map<Path, Integer> assumed)
            throws SQLException {
        List<Stored> stored = storedFiles(c, dir);
        Map<Integer, Stored> byFile = new HashMap<>();
        stored.forEach(s -> byFile.put(s.member().fileId(), s));
        CaptureGrouping.Result grouping = CaptureGrouping.group(stored.stream().map(Stored::member).toList());
        warnings.addAll(grouping.warnings());
        List<List<CaptureGrouping.Member>> groups = grouping.groups();
        Map<Integer, String> runs = StoreCaptures.runsIn(c, dir);
        Integer[] ids = keptIds(groups, byFile, runs.keySet());
        Set<String> taken = StoreCaptures.namesBesides(c, dir);
        List<String> names = CaptureNames.forDirectory(dir, groups, taken::contains);
        for (int i = 0; i < groups.size(); i++) {
            if (ids[i] == null) {
                ids[i] = StoreCaptures.insert(c, dir, names.get(i), null);
            } else {
                StoreCaptures.rename(c, ids[i], names.get(i));
            }
            StoreCaptures.assign(c, groups.get(i).stream().map(CaptureGrouping.Member::fileId).toList(), ids[i]);
            assumeRanks(c, groups.get(i), byFile, warnings, assumed);
        }
        Set<Integer> kept = new HashSet<>(Arrays.asList(ids));
        for (int id : runs.keySet()) {
            if (!kept.contains(id)) {
                StoreCaptures.delete(c, id);
            }
        }
        for (int id : ids) {
            StoreCaptures.dropStaleAnalyses(c, id);
        }
    }

    /**
     * For each group, the run capture of the directory that most of its files belonged to, when no larger
     * group claimed it first; null where the group is a new capture.
     */
    private static Integer[] keptIds(List<List<CaptureGrouping.Member>> groups, Map<Integer, Stored> byFile,
                                     Set<Integer> runs) {
        Integer[] ids = new Integer[groups.size()];
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingInt((Integer i) -> -groups.get(i).size()));
        Set<Integer> claimed = new HashSet<>();
        for (int i : order) {
            Map<Integer, Integer> votes = new HashMap<>();
            for (CaptureGrouping.Member m : groups.get(i)) {
                Integer was = byFile.get(m.fileId()).captureId();
                if (was != null && runs.contains(was) && !claimed.contains(was)) {
                    votes.merge(was, 1, Integer::sum);
                }
            }
            votes.entrySet().stream()
                    .max(Comparator.comparingInt((Map.Entry<Integer, Integer> e) -> e.getValue())
                            .thenComparing(e -> -e.getKey()))
                    .ifPresent(e -> {
                        ids[i] = e.getKey();
                        claimed.add(e.getKey());
                    });
        }
        return ids;
    }

    /**
     * Files whose rank neither the trace nor the file name states get the lowest ranks the capture's
     * other files leave free, in path order, with a warning when that changes their rank: the last resort.
     */
    private static void assumeRanks(Connection c, List<CaptureGrouping.Member> group, Map<Integer, Stored> byFile,
                                    List<String> warnings, Map<Path, Integer> assumed) throws SQLException {
        Set<Integer> used = new HashSet<>();
        group.stream().map(CaptureGrouping.Member::rank).filter(r -> r != null).forEach(used::add);
        int next = 0;
        for (CaptureGrouping.Member m : group) {
            if (m.rank() != null) {
                continue;
            }
            while (used.contains(next)) {
                next++;
            }
            int rank = next;
            used.add(rank);
            Stored s = byFile.get(m.fileId());
            if (!Integer.valueOf(rank).equals(s.rank()) || !"file_order".equals(s.rankSource())) {
                StoreFiles.setRank(c, m.fileId(), rank, "file_order");
                assumed.put(m.path(), rank);
                warnings.add(m.path().getFileName() + ": no rank in the trace (distributedInfo, MPI_RANKS) or the"
                        + " file name; assumed rank " + rank + " from file order");
            }
        }
    }

    /** The directory's stored files, with the devices their GPU operations ran on. */
    private static List<Stored> storedFiles(Connection c, Path dir) throws SQLException {
        List<Stored> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("""
                WITH f AS (
                    SELECT * FROM files WHERE starts_with(path, $1)
                ), used AS (
                    SELECT DISTINCT g.file_id, g.device FROM gpu_ops g SEMI JOIN f USING (file_id)
                ), named AS (
                    SELECT u.file_id, string_agg(DISTINCT d.name, chr(10)) AS devices
                    FROM used u JOIN devices d ON d.file_id = u.file_id AND d.device_id = u.device
                    WHERE d.name IS NOT NULL GROUP BY u.file_id
                )
                SELECT f.file_id, f.path, f.format, f.world_size, f.rank, f.rank_source, f.first_ts_ns, f.last_ts_ns,
                       f.capture_id, n.devices
                FROM f LEFT JOIN named n USING (file_id)
                ORDER BY f.path
                """)) {
            ps.setString(1, dir + "/");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Path path = Path.of(rs.getString(2));
                    if (!dir.equals(path.getParent())) {
                        continue;
                    }
                    Integer rank = (Integer) rs.getObject(5);
                    String rankSource = rs.getString(6);
                    String devices = rs.getString(10);
                    CaptureGrouping.Member m = new CaptureGrouping.Member(rs.getInt(1), path,
                            Importers.family(rs.getString(3)), (Integer) rs.getObject(4),
                            "file_order".equals(rankSource) ? null : rank,
                            devices == null ? Set.of() : Set.of(devices.split("\n")),
                            (Long) rs.getObject(7), (Long) rs.getObject(8));
                    out.add(new Stored(m, (Integer) rs.getObject(9), rank, rankSource));
                }
            }
        }
        return out;
    }
}
