package dev.steptrace.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.steptrace.report.CaptureDiff.Delta;
import dev.steptrace.report.CaptureDiff;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pieces of the diff's statistics: the step statistic, the noise floor, significance, the verdict. */
class DiffMethodTest {
    @Test
    void statisticIsTheMeanOverRanksOfEachRanksMean() {
        // Two ranks, three steps each: rank 0 = 1, 2, 3; rank 1 = 10, 20, 30.
        StepSample rect = new StepSample(new int[] {0, 0, 0, 1, 1, 1}, new int[] {0, 1, 2, 0, 1, 2}, 2, 3);
        double[] v = {1, 2, 3, 10, 20, 30};
        assertEquals(11, rect.prepare(v).at(rect.identity()), 1e-12);
        // Drawing step 2 twice and step 0 once: (1 + 3 + 3) / 3 and (10 + 30 + 30) / 3.
        assertEquals((7.0 / 3 + 70.0 / 3) / 2, rect.prepare(v).at(new int[] {1, 0, 2}), 1e-12);

        // Rank 1 lacks step 2: per rank means (2 and 15), not the pooled mean of five values.
        StepSample ragged = new StepSample(new int[] {0, 0, 0, 1, 1}, new int[] {0, 1, 2, 0, 1}, 2, 3);
        assertEquals((2 + 15) / 2.0, ragged.prepare(new double[] {1, 2, 3, 10, 20}).at(ragged.identity()), 1e-12);
        assertEquals((7.0 / 3 + 10) / 2.0, ragged.prepare(new double[] {1, 2, 3, 10, 20}).at(new int[] {1, 0, 2}), 1e-12,
                "rank 1 has only step 0 among the drawn ones");
        // A missing value (a step with no span) is left out of its rank's mean.
        assertEquals((2 + 10) / 2.0, ragged.prepare(new double[] {1, 2, 3, 10, Double.NaN}).at(ragged.identity()), 1e-12);

        // The same values through both paths agree under any draw.
        StepSample general = new StepSample(new int[] {0, 0, 0, 1, 1, 1}, new int[] {0, 1, 2, 0, 1, 2}, 2, 4);
        SplittableRandom rng = new SplittableRandom(7);
        for (int i = 0; i < 50; i++) {
            int[] w = rect.draw(rng);
            int[] w4 = {w[0], w[1], w[2], 0};
            assertEquals(rect.prepare(v).at(w), general.prepare(v).at(w4), 1e-9);
        }
    }

    @Test
    void noiseFloor() {
        double step = 40; // ms of kernel time per step in A
        assertEquals(0.26, DiffBuilder.noiseFloor(26, step), 1e-12, "1% of a large category");
        assertEquals(0.02, DiffBuilder.noiseFloor(0.5, step), 1e-12, "0.05% of the step for a mid-sized one");
        assertEquals(0.0021, DiffBuilder.noiseFloor(0.021, step), 1e-12, "10% of a small one");
        assertEquals(0.001, DiffBuilder.noiseFloor(0, step), 1e-12, "1 us for something new");
        assertEquals(0.4, DiffBuilder.noiseFloor(step, step), 1e-12, "1% of the step itself");
    }

    @Test
    void significanceNeedsTheIntervalAndTheFloor() {
        assertTrue(DiffBuilder.delta(10, 9, new double[] {-1.1, -0.9}, 40).significant());
        assertFalse(DiffBuilder.delta(10, 9, new double[] {-1.5, 0.1}, 40).significant(), "interval holds zero");
        assertFalse(DiffBuilder.delta(10, 9.95, new double[] {-0.06, -0.04}, 40).significant(), "under 1% of a");
        assertFalse(DiffBuilder.delta(10, 9, null, 40).significant(), "no interval: one step");
        Delta d = DiffBuilder.delta(0, 0.5, new double[] {0.4, 0.6}, 40);
        assertTrue(d.significant());
        assertEquals(null, d.deltaPct(), "no percentage of nothing");
    }

    @Test
    void verdictFollowsTheStepTime() {
        Delta faster = DiffBuilder.delta(40, 38, new double[] {-2.1, -1.9}, 40);
        Delta slower = DiffBuilder.delta(40, 42, new double[] {1.9, 2.1}, 40);
        Delta same = DiffBuilder.delta(40, 40.1, new double[] {-0.5, 0.7}, 40);
        assertEquals(CaptureDiff.Verdict.FASTER, DiffBuilder.verdict(faster, same, same), "step shorter, kernels unchanged");
        assertEquals(CaptureDiff.Verdict.SLOWER, DiffBuilder.verdict(slower, faster, faster), "step longer, kernels faster");
        assertEquals(CaptureDiff.Verdict.NO_SIGNIFICANT_CHANGE, DiffBuilder.verdict(same, faster, faster),
                "faster kernels that do not shorten the step");
    }

    @Test
    void withoutStepTimesKernelTimeAndSpanDecide() {
        Delta faster = DiffBuilder.delta(40, 38, new double[] {-2.1, -1.9}, 40);
        Delta slower = DiffBuilder.delta(40, 42, new double[] {1.9, 2.1}, 40);
        Delta same = DiffBuilder.delta(40, 40.1, new double[] {-0.5, 0.7}, 40);
        Delta none = DiffBuilder.delta(Double.NaN, Double.NaN, null, 40);
        assertEquals(CaptureDiff.Verdict.FASTER, DiffBuilder.verdict(none, faster, faster));
        assertEquals(CaptureDiff.Verdict.FASTER, DiffBuilder.verdict(none, faster, same), "kernel time down, span unchanged");
        assertEquals(CaptureDiff.Verdict.SLOWER, DiffBuilder.verdict(none, same, slower));
        assertEquals(CaptureDiff.Verdict.SLOWER, DiffBuilder.verdict(none, faster, slower), "the span decides when they disagree");
        assertEquals(CaptureDiff.Verdict.NO_SIGNIFICANT_CHANGE, DiffBuilder.verdict(none, same, same));
    }
}
