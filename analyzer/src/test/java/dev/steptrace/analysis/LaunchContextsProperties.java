package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.steptrace.store.DuckDb;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@link LaunchContexts} against the definition: the context of a launch in a layer is the deepest range of that
 * layer on the launch's thread that holds the launch's time (start at or before it, end after it). The ranges are
 * random trees, as a thread's ops nest: children inside their parent, some starting or ending with it, some
 * back to back, some of no length, external ids in the order the ranges start (a parent's before its children's).
 * Two files, two threads each, two layers; the files in one batch or each alone.
 */
class LaunchContextsProperties {
    private static final String[] LAYERS = {"op", "annotation"};

    /** A generated range: where it is, its depth in its tree, its name (unique: what the answer names). */
    private record Range(int file, int tid, int layer, long start, long end, int depth, int name, long externalId) {}

    @Property(tries = 40)
    void eachLaunchGetsTheDeepestRangeThatHoldsIt(@ForAll long seed) throws SQLException {
        Random random = new Random(seed);
        List<Range> ranges = new ArrayList<>();
        long[] ids = {0};
        for (int file = 1; file <= 2; file++) {
            for (int tid = 1; tid <= 2; tid++) {
                for (int layer = 0; layer < LAYERS.length; layer++) {
                    if (random.nextInt(4) > 0) {
                        tree(random, file, tid, layer, 0, 1000, 0, ranges, ids);
                    }
                }
            }
        }
        Map<Long, int[]> expected = new TreeMap<>();
        List<long[]> launches = new ArrayList<>(); // file, correlation, tid, at
        for (int k = 0; k < 300; k++) {
            int file = 1 + random.nextInt(2);
            int tid = 1 + random.nextInt(3); // thread 3 has no ranges
            // on range boundaries half the time: where starts, ends and zero-length ranges meet
            long at = random.nextBoolean() ? random.nextInt(1001)
                    : boundary(ranges, random, file, tid);
            long correlation = 10_000L * file + k;
            launches.add(new long[] {file, correlation, tid, at});
            int[] names = {-1, -1};
            int[] depths = {-1, -1};
            for (Range r : ranges) {
                if (r.file() == file && r.tid() == tid && r.start() <= at && at < r.end() && r.depth() > depths[r.layer()]) {
                    depths[r.layer()] = r.depth();
                    names[r.layer()] = r.name();
                }
            }
            expected.put(correlation, names);
        }
        try (Connection c = DuckDb.inMemory(); Statement s = c.createStatement()) {
            s.execute("CREATE TEMP TABLE t_files AS SELECT unnest([1, 2]) AS file_id");
            s.execute("CREATE TEMP TABLE h_ctx_ranges (file_id INTEGER, pid BIGINT, tid BIGINT, layer VARCHAR, name_id INTEGER,"
                    + " start_ns BIGINT, end_ns BIGINT, external_id BIGINT)");
            s.execute("CREATE TEMP TABLE h_ctx_launches (file_id INTEGER, correlation BIGINT, pid BIGINT, tid BIGINT,"
                    + " at_ns BIGINT)");
            s.execute("CREATE TEMP TABLE t_launch_contexts (file_id INTEGER, correlation BIGINT, op_name_id INTEGER,"
                    + " annotation_name_id INTEGER, module_name_id INTEGER)");
            if (random.nextBoolean()) {
                s.execute("SET VARIABLE file_batches = [[1, 2]]");
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO h_ctx_ranges VALUES (?, 7, ?, ?, ?, ?, ?, ?)")) {
                for (Range r : ranges) {
                    p.setInt(1, r.file());
                    p.setLong(2, r.tid());
                    p.setString(3, LAYERS[r.layer()]);
                    p.setInt(4, r.name());
                    p.setLong(5, r.start());
                    p.setLong(6, r.end());
                    p.setLong(7, r.externalId());
                    p.addBatch();
                }
                p.executeBatch();
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO h_ctx_launches VALUES (?, ?, 7, ?, ?)")) {
                for (long[] l : launches) {
                    for (int i = 0; i < l.length; i++) {
                        p.setLong(i + 1, l[i]);
                    }
                    p.addBatch();
                }
                p.executeBatch();
            }
            LaunchContexts.find(c);
            Map<Long, int[]> actual = new TreeMap<>();
            try (ResultSet rs = s.executeQuery("SELECT correlation, coalesce(op_name_id, -1), coalesce(annotation_name_id, -1),"
                    + " module_name_id IS NULL FROM t_launch_contexts")) {
                while (rs.next()) {
                    assertEquals(true, rs.getBoolean(4), "no module ranges, no module context");
                    actual.put(rs.getLong(1), new int[] {rs.getInt(2), rs.getInt(3)});
                }
            }
            assertEquals(render(expected), render(actual), "seed " + seed);
        }
    }

    /** Children of a range over [lo, hi): back to back or apart, each possibly sharing an end with it. */
    private static void tree(Random random, int file, int tid, int layer, long lo, long hi, int depth, List<Range> out,
                             long[] ids) {
        long t = lo;
        while (t < hi && depth < 5) {
            long start = random.nextInt(3) == 0 ? t : t + random.nextInt((int) Math.max(1, (hi - t) / 3));
            if (start >= hi) {
                return;
            }
            long end = random.nextInt(6) == 0 ? start : Math.min(hi, start + 1 + random.nextInt((int) (hi - start)));
            if (random.nextInt(5) == 0) {
                end = hi;
            }
            out.add(new Range(file, tid, layer, start, end, depth, out.size(), ++ids[0]));
            if (end > start + 1) {
                tree(random, file, tid, layer, start, end, depth + 1, out, ids);
            }
            t = end == start ? end + 1 : end;
        }
    }

    private static long boundary(List<Range> ranges, Random random, int file, int tid) {
        List<Long> at = new ArrayList<>();
        for (Range r : ranges) {
            if (r.file() == file && r.tid() == tid) {
                at.add(r.start());
                at.add(r.end());
            }
        }
        return at.isEmpty() ? random.nextInt(1001) : at.get(random.nextInt(at.size()));
    }

    private static String render(Map<Long, int[]> m) {
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(k).append(':').append(v[0]).append(',').append(v[1]).append('\n'));
        return b.toString();
    }
}
