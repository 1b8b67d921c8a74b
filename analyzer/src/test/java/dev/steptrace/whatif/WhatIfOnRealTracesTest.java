package dev.steptrace.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.api.Capture;
import dev.steptrace.api.Steptrace;
import dev.steptrace.testing.TestData;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/**
 * Projections checked against real captures (docs/whatif.md): the two H200 TP2 decode samples differ only in
 * NCCL's protocol (Simple, LL), so each one's collectives re-timed to the other's measured transfers must give
 * the other's step time; and every sample's critical paths, kept in the store, add up to its step times.
 */
class WhatIfOnRealTracesTest {
    @TempDir
    static Path tmp;

    private static Steptrace st;
    private static Capture ll;
    private static Capture simple;

    @BeforeAll
    static void open() {
        st = Steptrace.openTraces(TestData.sampleTraces(), tmp.resolve("whatif.duckdb"));
        ll = st.capture("graph-nccl-ll");
        simple = st.capture("graph-nccl-simple");
    }

    @AfterAll
    static void close() {
        if (st != null) {
            st.close();
        }
    }

    @Test
    void simpleWithLlsTransfersProjectsLlsStep() {
        assertProjects(simple, ll);
    }

    @Test
    void llWithSimplesTransfersProjectsSimplesStep() {
        assertProjects(ll, simple);
    }

    /**
     * {@code from}'s decode projected with each collective type's transfers scaled to {@code to}'s measured mean
     * per call: within 5% of {@code to}'s measured step time, and most of the way from {@code from}'s.
     */
    private static void assertProjects(Capture from, Capture to) {
        Map<String, Double> a = meanTransfers(from);
        Map<String, Double> b = meanTransfers(to);
        Map<String, Double> scale = new HashMap<>();
        a.forEach((type, ns) -> scale.put(type.equals("allreduce") ? "allreduce" : "comm_other", b.get(type) / ns));
        assertEquals(2, scale.size(), scale.toString()); // the samples have all-reduces and all-gathers
        WhatIf.PhaseProjection p = decode(from, new Changes(scale, Map.of(), Map.of(), null, false, 1.0));
        double own = stepMs(from);
        double target = stepMs(to);
        assertEquals(own, p.stepMs(), 1e-6 * own, "the projection's step time is the capture's");
        assertEquals(target, p.projectedStepMs(), 0.05 * target, from.name() + " -> " + to.name() + ": " + p);
        assertTrue(Math.abs(p.projectedStepMs() - target) < 0.25 * Math.abs(own - target),
                "closes most of the gap " + own + " -> " + target + ": " + p.projectedStepMs());
    }

    @Test
    void withoutChangesTheReplayGivesTheCapturesStepBack() {
        for (Capture c : List.of(ll, simple)) {
            WhatIf.PhaseProjection p = decode(c, Changes.NONE);
            assertEquals(stepMs(c), p.replayedStepMs(), 1e-4 * p.stepMs(), c.name());
            assertEquals(p.replayedStepMs(), p.projectedStepMs(), 1e-9, c.name());
            assertEquals(p.stepMs(), p.amdahlStepMs(), 1e-9, c.name());
            // the capture's critical path covers its step
            double path = p.criticalPath().stream().mapToDouble(WhatIf.PathShare::msPerStep).sum();
            assertEquals(p.replayedStepMs(), path, 0.01 * p.replayedStepMs(), c.name());
        }
    }

    @Test
    void everySamplesCriticalPathsSumToItsStepTimes() {
        // every capture of sample-traces/, each rank's every step: the store's critical_path against step_times
        st.captureList().forEach(c -> st.capture(c.id()).close());
        Table steps = st.sql("SELECT t.capture_id, t.file_id, t.step, t.step_ns, sum(p.ns)::DOUBLE AS path_ns"
                + " FROM step_times t LEFT JOIN critical_path p USING (capture_id, analysis_key, file_id, step)"
                + " GROUP BY ALL ORDER BY ALL");
        assertEquals(3, st.sql("SELECT DISTINCT capture_id FROM step_times").rowCount(), "the three sample captures");
        assertFalse(steps.isEmpty());
        for (Row r : steps) {
            long step = r.getLong("step_ns");
            assertEquals(step, r.getDouble("path_ns"), 0.01 * step, r.toString());
        }
    }

    @Test
    void theApisCriticalPathIsTheStoresMeanOverRanks() {
        // Capture.criticalPath (report.json's step_time.critical_path) against the view, averaged here per rank
        Table api = simple.criticalPath("decode");
        Table store = simple.sql("SELECT part, sum(ns) / 1e6 / 10 / 2 AS ms FROM critical_path WHERE " + simple.where()
                + " AND phase = 'decode' GROUP BY part"); // 10 steps on each of 2 ranks
        assertEquals(store.rowCount(), api.rowCount());
        Map<String, Double> byPart = new HashMap<>();
        for (Row r : store) {
            byPart.put(r.getString("part"), r.getDouble("ms"));
        }
        double sum = 0;
        for (Row r : api) {
            assertEquals(byPart.get(r.getString("part")), r.getDouble("ms_per_step"), 1e-9, r.getString("part"));
            sum += r.getDouble("ms_per_step");
        }
        assertEquals(stepMs(simple), sum, 0.01 * stepMs(simple));
    }

    private static WhatIf.PhaseProjection decode(Capture c, Changes changes) {
        List<WhatIf.PhaseProjection> phases = c.whatIf(changes, "decode");
        assertEquals(1, phases.size());
        return phases.get(0);
    }

    /** Per collective type, the mean transfer per call of the capture's decode (collective_instances). */
    private static Map<String, Double> meanTransfers(Capture c) {
        Map<String, Double> out = new HashMap<>();
        for (Row r : c.sql("SELECT type, avg(transfer_ns) AS ns FROM collective_instances WHERE " + c.where()
                + " AND phase = 'decode' GROUP BY type")) {
            out.put(r.getString("type"), r.getDouble("ns"));
        }
        return out;
    }

    /** The capture's measured decode step time: the mean of its steps' windows (step_times), ms. */
    private static double stepMs(Capture c) {
        return c.sql("SELECT avg(step_ns) / 1e6 AS ms FROM step_times WHERE " + c.where() + " AND phase = 'decode'")
                .doubleColumn("ms").get(0);
    }
}
