package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/** The per-step chart stays two series at any rank count: the median over ranks and the min-max band. */
class ReportChartsTest {
    @Test
    void sixtyFourRanksGiveAMedianLineAndOneBand() {
        // Rank r's step i takes 20 + r/100 + i/10 ms: per step, min is rank 0's, max rank 63's, and the
        // median lies between ranks 31 and 32 (20.315 + i/10).
        List<StepPoint> steps = new ArrayList<>();
        for (int r = 0; r < 64; r++) {
            for (int i = 0; i < 5; i++) {
                double ms = 20 + r / 100.0 + i / 10.0;
                steps.add(new StepPoint(r, "decode", i, "step", ms, ms, ms, null, Map.of()));
            }
        }
        XYChart chart = ReportCharts.steps("Decode", "decode", steps);
        assertNotNull(chart);
        Map<String, XYSeries> series = chart.getSeriesMap();
        assertEquals(List.of("min–max over 64 ranks", "median"), List.copyOf(series.keySet()));
        XYSeries band = series.get("min–max over 64 ranks");
        assertEquals(XYSeries.XYSeriesRenderStyle.PolygonArea, band.getXYSeriesRenderStyle());
        double[] by = band.getYData();
        assertEquals(10, by.length, "max forward, min back");
        assertEquals(20.63, by[0], 1e-9);
        assertEquals(20.0, by[9], 1e-9);
        assertEquals(20.63 + 0.4, by[4], 1e-9);
        assertEquals(20.4, by[5], 1e-9);
        double[] median = series.get("median").getYData();
        for (int i = 0; i < 5; i++) {
            assertEquals(20.315 + i / 10.0, median[i], 1e-9);
        }
    }

    @Test
    void oneRankIsOneLine() {
        List<StepPoint> steps = List.of(new StepPoint(3, "decode", 0, "s", 1.0, 1.0, 1.0, null, Map.of()),
                new StepPoint(3, "decode", 1, "s", 2.0, 2.0, 2.0, null, Map.of()));
        XYChart chart = ReportCharts.steps("Decode", "decode", steps);
        assertEquals(List.of("rank 3"), List.copyOf(chart.getSeriesMap().keySet()));
    }
}
