package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.store.DuckDb;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@link StepTimeParts} against interval arithmetic done here: in each step's window, the idle parts sum to the
 * window less the union of the operations' intervals, the busy parts to that union (each busy part rounded once:
 * within 4 ns), and the idle spans are the window's moments outside the union, the idle parts' sum; each CPU op's
 * idle time is its nanoseconds in no operation, counted one by one. Random steps (some with no GPU work), operations of
 * every category on several streams (overlapping, back to back, of no length, outside every window), host-sync calls
 * and CPU ops of the two kinds counted and one not.
 */
class StepTimePartsProperties {
    private static final String[] CATEGORIES = {"attention", "moe_gemm", "gemm", "routing", "memcpy", "other",
        "allreduce", "comm_other"};

    @Property(tries = 60)
    void partsSumToTheWindowAndIdleIsWhatNoOperationCovers(@ForAll long seed) throws SQLException {
        Random random = new Random(seed);
        int steps = 1 + random.nextInt(5);
        long[] start = new long[steps + 1];
        start[0] = random.nextInt(50);
        for (int i = 1; i <= steps; i++) {
            start[i] = start[i - 1] + random.nextInt(300);
        }
        List<long[]> ops = new ArrayList<>(); // ts, end, launch, category
        for (int k = 0; k < 5 + random.nextInt(60); k++) {
            long ts = random.nextInt((int) start[steps] + 100);
            long dur = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(80);
            ops.add(new long[] {ts, ts + dur, ts - random.nextInt(40), random.nextInt(CATEGORIES.length)});
        }
        try (Connection c = DuckDb.inMemory(); Statement s = c.createStatement()) {
            s.execute("CREATE TEMP TABLE t_files AS SELECT 1 AS file_id");
            s.execute("CREATE TEMP TABLE t_step_times (file_id INTEGER, rank INTEGER, step INTEGER, phase VARCHAR,"
                    + " phase_index INTEGER, start_ns BIGINT, end_ns BIGINT)");
            s.execute("CREATE TEMP TABLE t_step_metrics (file_id INTEGER, step INTEGER, gpu_start BIGINT, gpu_end BIGINT)");
            s.execute("CREATE TEMP TABLE t_classes (file_id INTEGER, name_id INTEGER, kind VARCHAR, variant UTINYINT,"
                    + " category VARCHAR)");
            s.execute("CREATE TEMP TABLE t_ops_core (file_id INTEGER, name_id INTEGER, kind VARCHAR, variant UTINYINT,"
                    + " ts_ns BIGINT, dur_ns BIGINT, launch_ns BIGINT)");
            s.execute("CREATE TEMP TABLE h_sync_calls (file_id INTEGER, ts_ns BIGINT, end_ns BIGINT, name_id INTEGER)");
            s.execute("CREATE TEMP TABLE cpu_ops (file_id INTEGER, kind VARCHAR, name_id INTEGER, ts_ns BIGINT, dur_ns BIGINT)");
            s.execute("CREATE TEMP TABLE t_step_parts_by_category (file_id INTEGER, rank INTEGER, step INTEGER,"
                    + " phase VARCHAR, phase_index INTEGER, part VARCHAR, ns BIGINT)");
            s.execute("CREATE TEMP TABLE h_idle_spans (file_id INTEGER, step INTEGER, s BIGINT, e BIGINT, sync_ts BIGINT,"
                    + " sync_name_id INTEGER, part VARCHAR)");
            s.execute("CREATE TEMP TABLE t_idle_cpu_ops (file_id INTEGER, rank INTEGER, phase VARCHAR, kind VARCHAR,"
                    + " name_id INTEGER, calls BIGINT, idle_ns BIGINT)");
            for (int i = 0; i < CATEGORIES.length; i++) {
                s.execute("INSERT INTO t_classes VALUES (1, " + i + ", 'kernel', 0, '" + CATEGORIES[i] + "')");
            }
            for (int i = 0; i < steps; i++) {
                s.execute("INSERT INTO t_step_times VALUES (1, 0, " + i + ", 'decode', " + i + ", " + start[i] + ", "
                        + start[i + 1] + ")");
                boolean gpu = random.nextInt(4) > 0;
                long g0 = start[i] + random.nextInt((int) (start[i + 1] - start[i]) + 1);
                long g1 = g0 + random.nextInt((int) (start[i + 1] - g0) + 1);
                s.execute("INSERT INTO t_step_metrics VALUES (1, " + i + ", " + (gpu ? g0 : "NULL") + ", "
                        + (gpu ? g1 : "NULL") + ")");
            }
            for (int k = 0; k < 3; k++) {
                long ts = random.nextInt((int) start[steps] + 1);
                s.execute("INSERT INTO h_sync_calls VALUES (1, " + ts + ", " + (ts + random.nextInt(30)) + ", 50)");
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t_ops_core VALUES (1, ?, 'kernel', 0, ?, ?, ?)")) {
                for (long[] o : ops) {
                    p.setLong(1, o[3]);
                    p.setLong(2, o[0]);
                    p.setLong(3, o[1] - o[0]);
                    p.setLong(4, o[2]);
                    p.addBatch();
                }
                p.executeBatch();
            }
            List<long[]> cpuOps = new ArrayList<>(); // ts, end, name id
            try (PreparedStatement p = c.prepareStatement("INSERT INTO cpu_ops VALUES (1, ?, ?, ?, ?)")) {
                String[] kinds = {"cpu_op", "python_function", "user_annotation"};
                for (int k = 0; k < 5 + random.nextInt(80); k++) {
                    long ts = random.nextInt((int) start[steps] + 100);
                    long dur = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(120);
                    int kind = random.nextInt(kinds.length);
                    int name = random.nextInt(4);
                    p.setString(1, kinds[kind]);
                    p.setInt(2, 10 * kind + name);
                    p.setLong(3, ts);
                    p.setLong(4, dur);
                    p.addBatch();
                    if (kind < 2) {
                        cpuOps.add(new long[] {ts, ts + dur, 10 * kind + name});
                    }
                }
                p.executeBatch();
            }
            StepTimeParts.cut(c);
            // per CPU op name: the calls that ran over idle time, and that time, counted a nanosecond at a time
            Map<Long, List<Long>> idleByName = new HashMap<>();
            for (long[] op : cpuOps) {
                long idle = 0;
                for (long t = Math.max(op[0], start[0]); t < Math.min(op[1], start[steps]); t++) {
                    boolean covered = false;
                    for (long[] o : ops) {
                        covered |= o[0] <= t && t < o[1];
                    }
                    idle += covered ? 0 : 1;
                }
                if (idle > 0) {
                    List<Long> sums = idleByName.computeIfAbsent(op[2], k -> new ArrayList<>(List.of(0L, 0L)));
                    sums.set(0, sums.get(0) + 1);
                    sums.set(1, sums.get(1) + idle);
                }
            }
            Map<Long, List<Long>> idleCpu = new HashMap<>();
            try (ResultSet rs = s.executeQuery("SELECT name_id, sum(calls)::BIGINT, sum(idle_ns)::BIGINT FROM t_idle_cpu_ops"
                    + " GROUP BY name_id")) {
                while (rs.next()) {
                    idleCpu.put(rs.getLong(1), List.of(rs.getLong(2), rs.getLong(3)));
                }
            }
            assertEquals(idleByName, idleCpu, "seed " + seed + ": CPU ops' calls and idle time by name");
            Map<Integer, long[]> parts = new HashMap<>(); // idle, busy, parts
            try (ResultSet rs = s.executeQuery("SELECT step, part LIKE 'idle_%', ns FROM t_step_parts_by_category")) {
                while (rs.next()) {
                    long[] p = parts.computeIfAbsent(rs.getInt(1), k -> new long[3]);
                    p[rs.getBoolean(2) ? 0 : 1] += rs.getLong(3);
                    p[2]++;
                }
            }
            Map<Integer, List<long[]>> spans = new HashMap<>();
            try (ResultSet rs = s.executeQuery("SELECT step, s, e FROM h_idle_spans ORDER BY s")) {
                while (rs.next()) {
                    spans.computeIfAbsent(rs.getInt(1), k -> new ArrayList<>()).add(new long[] {rs.getLong(2), rs.getLong(3)});
                }
            }
            for (int i = 0; i < steps; i++) {
                long window = start[i + 1] - start[i];
                long busy = union(ops, start[i], start[i + 1]);
                long[] p = parts.getOrDefault(i, new long[3]);
                String where = "seed " + seed + ", step " + i;
                assertEquals(window - busy, p[0], where + ": idle");
                assertTrue(Math.abs(busy - p[1]) <= 4, where + ": busy " + p[1] + " against " + busy);
                long spanned = 0;
                long last = start[i];
                for (long[] span : spans.getOrDefault(i, List.of())) {
                    assertTrue(span[0] >= last && span[1] > span[0] && span[1] <= start[i + 1], where + ": span");
                    spanned += span[1] - span[0];
                    last = span[1];
                }
                assertEquals(window - busy, spanned, where + ": idle spans");
            }
        }
    }

    /** The length of the union of the operations' intervals within [lo, hi). */
    private static long union(List<long[]> ops, long lo, long hi) {
        List<long[]> in = new ArrayList<>();
        for (long[] o : ops) {
            if (Math.min(hi, o[1]) > Math.max(lo, o[0])) {
                in.add(new long[] {Math.max(lo, o[0]), Math.min(hi, o[1])});
            }
        }
        return BusyTimeTest.union(in);
    }
}
