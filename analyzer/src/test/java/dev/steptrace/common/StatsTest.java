package dev.steptrace.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The statistics computed in Java, against values worked out by hand. */
class StatsTest {
    @Test
    void meanOfValuesAndOfNone() {
        assertEquals(2.5, Stats.mean(new double[] {1, 2, 3, 4}));
        assertEquals(2.5, Stats.mean(List.of(1.0, 2.0, 3.0, 4.0)));
        assertEquals(7.0 / 3, Stats.mean(new int[] {1, 2, 4}), 1e-12);
        // The empty case, decided once: a mean of nothing is 0 (a count of nothing), never NaN in a report.
        assertEquals(0.0, Stats.mean(new double[0]));
        assertEquals(0.0, Stats.mean(List.of()));
        assertEquals(0.0, Stats.mean(new int[0]));
    }

    @Test
    void quantileInterpolatesBetweenClosestRanks() {
        // Sorted 10, 20, 30, 40: position 0.9 * 3 = 2.7 -> 30 + 0.7 * 10 = 37; the median 25.
        double[] v = {10, 20, 30, 40};
        assertEquals(37.0, Stats.quantile(v, 0.9), 1e-12);
        assertEquals(25.0, Stats.quantile(v, 0.5), 1e-12);
        assertEquals(Double.NaN, Stats.quantile(new double[0], 0.5));
    }
}
